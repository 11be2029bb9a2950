// Binary junk, over-long lines and odd input must never crash the parser,
// and a real line after the junk must still be read.

#include <gtest/gtest.h>

#include <random>

#include "adapters/megatron/megatron_log_json.hpp"
#include "tests/megatron/parse_text.hpp"

namespace paratune {
namespace {

using test::parse_text;

constexpr std::string_view good_line =
    " iteration       10/     100 | elapsed time per iteration (ms): 250.0 |\n";

TEST(robustness, random_binary_junk_then_a_real_line) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string junk(2 << 20, '\0');
  for (auto& c : junk) c = static_cast<char>(byte(rng));
  const auto log = parse_text(junk + "\n" + std::string(good_line));
  ASSERT_FALSE(log.iterations.empty());
  EXPECT_DOUBLE_EQ(log.iterations.back().elapsed_ms, 250.0);
  EXPECT_NO_THROW((void)to_json(log).dump()); // invalid UTF-8 is repaired
}

TEST(robustness, an_over_long_line_is_cut_and_marks_the_log_partial) {
  std::string huge = "torch.OutOfMemoryError: CUDA out of memory. ";
  huge += std::string(10 * megatron_log_parser::max_line_bytes, 'y');
  const auto log = parse_text(huge + "\n" + std::string(good_line));
  EXPECT_TRUE(log.partial);
  EXPECT_EQ(log.lines, 2);
  ASSERT_EQ(log.errors.size(), 1u); // the cut line still counts
  EXPECT_EQ(log.errors[0].message.size(), megatron_log_parser::max_line_bytes);
  ASSERT_EQ(log.iterations.size(), 1u);
  EXPECT_EQ(log.iterations[0].line, 2);
}

TEST(robustness, a_log_that_ends_mid_line_is_not_partial) {
  const auto log = parse_text(good_line.substr(0, good_line.size() - 1));
  EXPECT_FALSE(log.partial);
  EXPECT_EQ(log.iterations.size(), 1u);
}

TEST(robustness, nul_bytes_truncated_records_and_empty_input) {
  using namespace std::string_literals;
  EXPECT_NO_THROW(parse_text(""));
  EXPECT_NO_THROW(parse_text("\n\n\n"));
  const auto log =
      parse_text("\0\0\0[Rank 0] (after"s +
                 "\n"
                 "[Rank \n"
                 "[Rank 3] (after 1 iterations) memory (MB) | allocated: \n"
                 " iteration \n"
                 " iteration 5/\n"
                 " [2024-01-01 00:00:00\n"
                 "time (ms) |\n"
                 "(min, max) time across ranks (ms):\n"
                 "     : (1.0,\n"
                 "    x ....: (\n"
                 "------------------------ arguments ------------------------\n"
                 "   \n"
                 "  x\n"
                 "using world size: \n"
                 "Theoretical memory footprints: weight and optimizer=\n"
                 "Number of parameters in most loaded shard in billions:\n"
                 " > number of parameters on (tensor, pipeline) model parallel rank (\n"
                 "[after x] datetime: \n"
                 "AssertionError\n");
  EXPECT_EQ(log.lines, 19);
  EXPECT_TRUE(log.iterations.empty());
  ASSERT_EQ(log.memory.size(), 1u); // header complete, values missing: zeros
  EXPECT_DOUBLE_EQ(log.memory[0].allocated_mib, 0.0);
  EXPECT_FALSE(log.theory.weight_and_optimizer_mb.has_value());
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::config_invalid);
}

TEST(robustness, numbers_out_of_range_do_not_throw) {
  const auto log = parse_text(
      " iteration 99999999999999999999999/1 | elapsed time per iteration (ms): 1e999 |\n"
      "[Rank 99999999999999999999] (after 1 iterations) memory (MB) | allocated: nan\n"
      " iteration       1/      2 | elapsed time per iteration (ms): nan | throughput per GPU "
      "(TFLOP/s/GPU): inf |\n");
  ASSERT_EQ(log.iterations.size(), 1u);
  EXPECT_TRUE(std::isnan(log.iterations[0].elapsed_ms));
  EXPECT_NO_THROW((void)to_json(log).dump());
}

} // namespace
} // namespace paratune
