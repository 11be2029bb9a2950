// Per-iteration lines of every Megatron-LM generation and of the forks
// (notes/input_formats.md §1.1), read through the whole parser so that
// launcher prefixes are part of what is tested.

#include <gtest/gtest.h>

#include "adapters/megatron/iteration_line.hpp"
#include "tests/megatron/parse_text.hpp"

namespace paratune {
namespace {

using test::parse_text;

iteration_record only_iteration(std::string_view text) {
  const auto log = parse_text(text);
  EXPECT_EQ(log.iterations.size(), 1u) << text;
  return log.iterations.empty() ? iteration_record{} : log.iterations[0];
}

TEST(iteration_line, head_with_microsecond_timestamp_and_torchrun_tee_prefix) {
  const auto r = only_iteration(
      "[default7]: [2026-09-14 15:08:34.201805] iteration       45/  102400 | consumed samples: "
      "         360 | elapsed time per iteration (ms): 6928.0 | throughput per GPU (TFLOP/s/GPU): "
      "61.9 | learning rate: 1.000000E-05 | global batch size:     8 | lm loss: 1.012345E+01 | "
      "loss scale: 1.0 | grad norm: 1.234 | num zeros: 759052800.0 | params norm: 2241.466 | "
      "number of skipped iterations:   0 | number of nan iterations:   0 |\n");
  EXPECT_EQ(r.iteration, 45);
  EXPECT_EQ(r.train_iters, 102400);
  EXPECT_DOUBLE_EQ(r.elapsed_ms, 6928.0);
  EXPECT_DOUBLE_EQ(*r.tflops_per_gpu, 61.9);
  EXPECT_EQ(r.timestamp(), "2026-09-14 15:08:34.201805");
  ASSERT_EQ(r.values.size(), 12u);
  EXPECT_EQ(r.values[9].first, "params norm");
  EXPECT_EQ(r.values[9].second, "2241.466");
  EXPECT_EQ(find_value(r, "num zeros"), "759052800.0");
  EXPECT_EQ(r.line, 1);
}

TEST(iteration_line, core_0_6_to_0_15_timestamp_without_microseconds_and_moe_losses) {
  const auto r = only_iteration(
      " [2024-04-06 02:59:36] iteration       43/     100 | consumed samples:         5504 | "
      "elapsed time per iteration (ms): 5444.9 | throughput per GPU (TFLOP/s/GPU): 239.8 | "
      "learning rate: 8.600000E-06 | global batch size:   128 | lm loss: 1.825991E+00 | "
      "load_balancing_loss: 1.019746E+00 | loss scale: 1.0 | grad norm: 1.426 | num zeros: 0.0 | "
      "number of skipped iterations:   0 | number of nan iterations:   0 |");
  EXPECT_EQ(r.iteration, 43);
  EXPECT_EQ(r.timestamp(), "2024-04-06 02:59:36");
  EXPECT_DOUBLE_EQ(*r.tflops_per_gpu, 239.8);
  EXPECT_DOUBLE_EQ(*find_number(r, "load_balancing_loss"), 1.019746);
  EXPECT_DOUBLE_EQ(*find_number(r, "lm loss"), 1.825991);
}

TEST(iteration_line, core_0_5_and_older_no_timestamp_short_learning_rate) {
  const auto r = only_iteration(
      " iteration      200/    1000 | consumed samples:          800 | elapsed time per "
      "iteration (ms): 430.0 | learning rate: 1.342E-04 | global batch size:     4 | lm loss: "
      "7.399415E+00 | loss scale: 16384.0 | grad norm: 2.918 | number of skipped iterations:   0 "
      "| number of nan iterations:   0 |");
  EXPECT_EQ(r.iteration, 200);
  EXPECT_EQ(r.train_iters, 1000);
  EXPECT_DOUBLE_EQ(r.elapsed_ms, 430.0);
  EXPECT_FALSE(r.timestamp().has_value());
  EXPECT_FALSE(r.tflops_per_gpu.has_value());
  EXPECT_EQ(find_value(r, "learning rate"), "1.342E-04");
}

TEST(iteration_line, every_launcher_prefix) {
  const std::string body = " iteration       10/      20 | elapsed time per iteration (ms): 12.5 |";
  for (const std::string prefix : {"[default0]:", "[lrdn3321:3]:", "[rank7]:", "3: ",
                                   "[default0]:[rank0]:", "INFO:megatron.training:"}) {
    const auto r = only_iteration(prefix + body);
    EXPECT_EQ(r.iteration, 10) << prefix;
    EXPECT_DOUBLE_EQ(r.elapsed_ms, 12.5) << prefix;
  }
}

TEST(iteration_line, unknown_fork_keys_are_kept_verbatim) {
  const auto r = only_iteration(
      " iteration       10/     100 | consumed samples:  40 | consumed tokens:  81920 | elapsed "
      "time per iteration (ms): 1500.2 | learning rate: 1.0E-04 | global batch size: 4 | lm loss: "
      "9.5E+00 | actual seqlen:  2048 | tokens per GPU (tokens/s/GPU): 2730.1 | hip mem "
      "usage/free/total/usage_ratio: 60.1GB/131.9GB/192.0GB/0.31 | samples per second: 2.666 | "
      "TFLOPs: 123.45 | my_new_metric: abc |");
  EXPECT_DOUBLE_EQ(r.elapsed_ms, 1500.2);
  EXPECT_DOUBLE_EQ(*r.tflops_per_gpu, 123.45); // Megatron-DeepSpeed's name for it
  EXPECT_EQ(find_value(r, "actual seqlen"), "2048");
  EXPECT_EQ(find_value(r, "tokens per GPU (tokens/s/GPU)"), "2730.1");
  EXPECT_EQ(find_value(r, "hip mem usage/free/total/usage_ratio"), "60.1GB/131.9GB/192.0GB/0.31");
  EXPECT_EQ(find_value(r, "my_new_metric"), "abc");
  EXPECT_EQ(r.values.size(), 12u);
}

TEST(iteration_line, slash_values_read_their_first_number) {
  // AMD Primus prints current/average.
  const auto r = only_iteration(
      " [2025-03-01 10:00:00] iteration      100/    1000 | elapsed time per iteration (ms): "
      "13100.0/13240.9 | throughput per GPU (TFLOP/s/GPU): 402.1/398.7 | lm loss: 3.2E+00 |");
  EXPECT_DOUBLE_EQ(r.elapsed_ms, 13100.0);
  EXPECT_DOUBLE_EQ(*r.tflops_per_gpu, 402.1);
  EXPECT_EQ(find_value(r, "elapsed time per iteration (ms)"), "13100.0/13240.9");
}

TEST(iteration_line, fork_iteration_time_in_seconds) {
  const auto r = only_iteration(
      " iteration        5/      50 | iteration time: 270.125 s samples/sec: 3.8 | lm loss: "
      "5.0E+00 |");
  EXPECT_DOUBLE_EQ(r.elapsed_ms, 270125.0);
}

TEST(iteration_line, energy_and_skipped_samples_fields_of_newer_versions) {
  const auto r = only_iteration(
      " [2026-01-02 03:04:05.000001] iteration      300/    1000 | consumed samples:       "
      "38400 | skipped samples:            4 | elapsed time per iteration (ms): 999.9 | "
      "throughput per GPU (TFLOP/s/GPU): 450.0 | energy per GPU (J/iter/GPU): 650.3 | power "
      "per GPU (W/GPU): 650.4 | global batch size:   128 | lm loss: 2.000000E+00 | mtp_1 loss: "
      "2.100000E+00 | loss scale: 1.0 |");
  EXPECT_EQ(find_value(r, "skipped samples"), "4");
  EXPECT_EQ(find_value(r, "energy per GPU (J/iter/GPU)"), "650.3");
  EXPECT_FALSE(find_value(r, "learning rate").has_value()); // 0.16+: omitted when None
  EXPECT_DOUBLE_EQ(*r.tflops_per_gpu, 450.0);
}

TEST(iteration_line, text_that_only_starts_like_an_iteration_line_is_not_one) {
  iteration_record r;
  EXPECT_FALSE(parse_iteration_line("iteration 5 done", r));
  EXPECT_FALSE(parse_iteration_line("iterations: 5", r));
  EXPECT_FALSE(parse_iteration_line(" [2024-01-01 00:00:00] iteration abc/10 |", r));
  EXPECT_FALSE(parse_iteration_line("exiting program at iteration 5", r));
  const auto log = parse_text("iteration 5 done\n> setting iteration to 7\n");
  EXPECT_TRUE(log.iterations.empty());
}

TEST(iteration_line, interleaved_ranks_keep_every_last_rank_line) {
  const auto log =
      parse_text("[default0]:some rank 0 output\n"
                 "[default7]: [2024-01-01 00:00:01] iteration        1/      10 | elapsed time per "
                 "iteration (ms): 100.0 |\n"
                 "[default3]:[rank3]:[W init.cpp:767] Warning: nvfuser is no longer supported\n"
                 "[default0]:another line\n"
                 "[default7]: [2024-01-01 00:00:02] iteration        2/      10 | elapsed time per "
                 "iteration (ms): 90.0 |\n");
  ASSERT_EQ(log.iterations.size(), 2u);
  EXPECT_EQ(log.iterations[1].iteration, 2);
  EXPECT_EQ(log.iterations[1].line, 5);
  EXPECT_TRUE(log.errors.empty());
}

TEST(validation_line, reads_the_validation_loss_block) {
  const auto log = parse_text(
      "-----------------------------------------------------------------------------------------"
      "------\n"
      " validation loss at iteration 100 | lm loss value: 8.017406E+00 | lm loss PPL: "
      "3.033300E+03 | \n"
      "-----------------------------------------------------------------------------------------"
      "------\n"
      " validation loss at the end of training for val data | lm loss value: 7.0E+00 | lm loss "
      "PPL: 1.1E+03 | \n");
  ASSERT_EQ(log.validations.size(), 2u);
  EXPECT_EQ(log.validations[0].iteration, 100);
  ASSERT_EQ(log.validations[0].values.size(), 2u);
  EXPECT_EQ(log.validations[0].values[1].first, "lm loss PPL");
  EXPECT_EQ(log.validations[0].values[1].second, "3.033300E+03");
  EXPECT_EQ(log.validations[1].iteration, 0);
}

} // namespace
} // namespace paratune
