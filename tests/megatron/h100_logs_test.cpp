// paratune's own Megatron-LM runs on one H100 (data/h100_1gpu/megatron/,
// Megatron-LM d98e8a64, 2026-11-27): the parser, the trial scorer and the
// early stopper on logs a GPU just wrote, in today's format.

#include <gtest/gtest.h>

#include <fstream>

#include "adapters/megatron/megatron_log_parser.hpp"
#include "core/trial_scoring.hpp"
#include "core/tuning/early_stop.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

std::string h100_log(const std::string& label) {
  return test::data_dir() + "/h100_1gpu/megatron/" + label + ".log";
}

std::vector<iteration_sample> samples_of(const megatron_log& log) {
  std::vector<iteration_sample> out;
  for (const auto& it : log.iterations)
    out.push_back({it.iteration, it.elapsed_ms, it.tflops_per_gpu.value_or(0)});
  return out;
}

TEST(h100_megatron_log, reads_iterations_memory_and_the_argument_dump) {
  const auto log = parse_megatron_log_file(h100_log("s2048_mbs4_none"));
  ASSERT_EQ(log.iterations.size(), 16u);
  EXPECT_EQ(log.iterations.front().iteration, 1);
  EXPECT_EQ(log.iterations.front().train_iters, 16);
  EXPECT_DOUBLE_EQ(log.iterations.front().elapsed_ms, 3307.5);
  EXPECT_DOUBLE_EQ(*log.iterations.front().tflops_per_gpu, 33.5);
  EXPECT_EQ(log.iterations.front().timestamp(), "2026-11-27 09:29:43.588080");
  EXPECT_DOUBLE_EQ(log.iterations.back().elapsed_ms, 870.9);
  EXPECT_DOUBLE_EQ(*log.iterations.back().tflops_per_gpu, 127.2);
  EXPECT_EQ(find_value(log.iterations[2], "lm loss"), "6.581541E+00");
  // Megatron-LM reports memory after the first two iterations: the
  // optimizer's states arrive in the first, the peak grows in the second.
  ASSERT_EQ(log.memory.size(), 2u);
  EXPECT_EQ(log.memory[1].iteration, 2);
  EXPECT_DOUBLE_EQ(log.memory[0].max_allocated_mib, 48332.79);
  EXPECT_DOUBLE_EQ(log.memory[1].max_allocated_mib, 56726.49);
  EXPECT_DOUBLE_EQ(log.memory[1].allocated_mib, 19974.08);
  ASSERT_TRUE(log.layout.has_value());
  EXPECT_EQ(log.layout->world_size, 1);
  EXPECT_EQ(log.args.at("micro_batch_size"), "4");
  EXPECT_EQ(log.args.at("transformer_impl"), "local");
  EXPECT_TRUE(log.errors.empty());
}

// The first try ran Megatron-LM's local transformer implementation without
// --no-persist-layer-norm: torch's norms refuse it at model construction.
TEST(h100_megatron_log, the_failed_first_try_is_a_configuration_error) {
  const auto log = parse_megatron_log_file(h100_log("failed_persist_layer_norm"));
  EXPECT_TRUE(log.iterations.empty());
  ASSERT_FALSE(log.errors.empty());
  EXPECT_EQ(log.errors.front().kind, log_error_kind::config_invalid);
  EXPECT_EQ(log.errors.front().message,
            "AssertionError: persist_layer_norm not supported by torch LayerNorm");
}

// The second machine's micro-batch 8 (2026-11-27, 18:41): the allocator
// gives up in the first forward's softmax, before any iteration is logged.
// The run's verdict is out of memory, with torch's own words.
TEST(h100_megatron_log, micro_batch_8_runs_out_of_memory_in_the_first_forward) {
  const auto log = parse_megatron_log_file(h100_log("s2048_mbs8_none"));
  EXPECT_TRUE(log.iterations.empty());
  EXPECT_TRUE(log.memory.empty());
  ASSERT_FALSE(log.errors.empty());
  EXPECT_EQ(log.errors.front().kind, log_error_kind::oom);
  EXPECT_NE(log.errors.front().message.find("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
                                             "total capacity of 79.18 GiB of which 1.84 GiB is free."),
            std::string::npos)
      << log.errors.front().message;
  for (const auto& e : log.errors)
    EXPECT_EQ(e.kind, log_error_kind::oom) << e.line << ": " << e.message;
}

// Sequence 8192 ran until the capture's time limit killed it (SIGTERM from
// `timeout`) at iteration 12 of 16: what it logged is whole, and the kill
// is not mistaken for a failure of the configuration.
TEST(h100_megatron_log, a_run_killed_from_outside_keeps_its_iterations) {
  const auto log = parse_megatron_log_file(h100_log("s8192_mbs1_selective"));
  ASSERT_EQ(log.iterations.size(), 12u);
  EXPECT_EQ(log.iterations.back().train_iters, 16);
  EXPECT_DOUBLE_EQ(log.iterations.back().elapsed_ms, 14067.2);
  ASSERT_EQ(log.memory.size(), 2u);
  EXPECT_DOUBLE_EQ(log.memory[1].max_allocated_mib, 50386.00);
  for (const auto& e : log.errors)
    EXPECT_NE(e.kind, log_error_kind::oom) << e.message;
}

// The wider layer (hidden 4096, Llama-2-7B's) runs its GEMMs at twice the
// TinyLlama shape's rate: 272.7 TFLOP/s at iteration 10 against 127.
TEST(h100_megatron_log, the_wide_layer_reports_its_own_throughput) {
  const auto score = score_iterations(samples_of(parse_megatron_log_file(h100_log("l7b8_s2048_mbs2_none"))));
  EXPECT_EQ(score.scored, 14);
  EXPECT_NEAR(score.iteration_ms, 655.2, 0.5);
  EXPECT_GT(score.tflops_per_gpu, 270);
}

// The profiled run: iteration 14 wrote the Kineto trace (6322 ms). The
// scorer leaves out the two warm-up iterations and that hiccup.
TEST(h100_megatron_log, scoring_skips_warm_up_and_the_profiler_export) {
  const auto score = score_iterations(samples_of(parse_megatron_log_file(h100_log("s2048_mbs2_none"))));
  EXPECT_EQ(score.scored, 13);
  EXPECT_NEAR(score.iteration_ms, 910.8, 0.05);
  EXPECT_NEAR(score.tflops_per_gpu, 121.6, 0.05);
}

stop_decision replay(const std::string& label, incumbent_rate incumbent, long long& stopped_at) {
  std::ifstream in(h100_log(label));
  megatron_log_parser parser;
  early_stopper stopper(early_stop_policy{}, incumbent);
  size_t seen = 0;
  stopped_at = 0;
  for (std::string line; std::getline(in, line);) {
    parser.feed(line);
    parser.feed("\n");
    const auto& its = parser.log().iterations;
    for (; seen < its.size(); ++seen) {
      const auto& it = its[seen];
      if (auto d = stopper.on_iteration({it.iteration, it.elapsed_ms, it.tflops_per_gpu.value_or(0)})) {
        stopped_at = it.iteration;
        return d;
      }
    }
  }
  return {};
}

// Every iteration logged: after the two warm-up ones, five within 2% end
// the steady run at iteration 7 of 16.
TEST(h100_megatron_log, early_stop_ends_a_steady_run_after_five_scored_iterations) {
  long long at = 0;
  const auto d = replay("s2048_mbs4_none", {}, at);
  EXPECT_EQ(d.reason, stop_reason::stable) << d.text;
  EXPECT_EQ(at, 7);
}

// Micro-batch 1 wanders between 1010 and 1223 ms: never stable on its own,
// but against micro-batch 4's 127 TFLOP/s it cannot win by its first rung.
TEST(h100_megatron_log, early_stop_on_a_noisy_run_waits_or_gives_way) {
  long long at = 0;
  EXPECT_EQ(replay("s2048_mbs1_none", {}, at).reason, stop_reason::none);
  EXPECT_EQ(at, 0);
  const auto d = replay("s2048_mbs1_none", {127.0, 0}, at);
  EXPECT_EQ(d.reason, stop_reason::cannot_beat_incumbent) << d.text;
  EXPECT_EQ(at, 5);
}

} // namespace
} // namespace paratune
