// Timer blocks of every --timing-log-option and the pre-core one-line form
// (notes/input_formats.md §1.5).

#include <gtest/gtest.h>

#include "adapters/megatron/timer_lines.hpp"
#include "tests/megatron/parse_text.hpp"

namespace paratune {
namespace {

using test::parse_text;

constexpr const char* iteration_45 =
    " [2024-01-01 00:00:00] iteration       45/     100 | elapsed time per iteration (ms): 5.0 |\n";

TEST(timer_lines, min_max_block_after_an_iteration_line) {
  const auto log =
      parse_text(std::string(iteration_45) +
                 "(min, max) time across ranks (ms):\n"
                 "    forward-backward ...............................: (123.45, 130.00)\n"
                 "    optimizer ......................................: (5.10, 6.20)\n");
  ASSERT_EQ(log.timers.size(), 1u);
  const auto& r = log.timers[0];
  EXPECT_EQ(r.iteration, 45);
  EXPECT_EQ(r.line, 2);
  ASSERT_EQ(r.timers.size(), 2u);
  EXPECT_EQ(r.timers[0].name, "forward-backward");
  EXPECT_DOUBLE_EQ(*r.timers[0].min_ms, 123.45);
  EXPECT_DOUBLE_EQ(r.timers[0].max_ms, 130.0);
  EXPECT_EQ(r.timers[1].name, "optimizer");
}

TEST(timer_lines, max_only_block) {
  const auto log = parse_text("max time across ranks (ms):\n"
                              "    forward-backward ...............................: 130.00\n"
                              "    forward-recv ...................................: 12.50\n");
  ASSERT_EQ(log.timers.size(), 1u);
  ASSERT_EQ(log.timers[0].timers.size(), 2u);
  EXPECT_FALSE(log.timers[0].timers[0].min_ms.has_value());
  EXPECT_DOUBLE_EQ(log.timers[0].timers[1].max_ms, 12.5);
}

TEST(timer_lines, all_ranks_block_keeps_min_and_max_over_ranks) {
  const auto log = parse_text("times across ranks (ms):\n"
                              "  forward-backward:\n"
                              "     rank  0: 120.00\n"
                              "     rank  1: 131.50\n"
                              "     rank  2: 125.00\n"
                              "  optimizer:\n"
                              "     rank  0: 6.00\n");
  ASSERT_EQ(log.timers.size(), 1u);
  const auto& t = log.timers[0].timers;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].name, "forward-backward");
  EXPECT_DOUBLE_EQ(*t[0].min_ms, 120.0);
  EXPECT_DOUBLE_EQ(t[0].max_ms, 131.5);
  EXPECT_DOUBLE_EQ(*t[1].min_ms, 6.0);
  EXPECT_DOUBLE_EQ(t[1].max_ms, 6.0);
}

TEST(timer_lines, pre_core_one_line_form) {
  const auto log = parse_text(
      "time (ms) | forward-compute: 53.79 | forward-recv: 38.38 | backward-compute: 120.5 | "
      "batch-generator: 2.35\n");
  ASSERT_EQ(log.timers.size(), 1u);
  const auto& t = log.timers[0].timers;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[1].name, "forward-recv");
  EXPECT_DOUBLE_EQ(t[1].max_ms, 38.38);
  EXPECT_EQ(t[3].name, "batch-generator");
  EXPECT_DOUBLE_EQ(t[3].max_ms, 2.35);
}

TEST(timer_lines, logging_prefixed_header_and_interleaved_ranks) {
  // 0.16+ logs the block with Python logging: only the first line carries
  // the logger prefix. Other ranks' lines may land between entries.
  const auto log =
      parse_text(std::string("[default7]:") + iteration_45 +
                 "[default7]:INFO:megatron.core.timers:(min, max) time across ranks (ms):\n"
                 "[default7]:    forward-backward ...............................: (1.00, 2.00)\n"
                 "[default2]:[rank2]: some unrelated output: 5\n"
                 "[default7]:    forward-recv ...................................: (3.00, 4.00)\n");
  ASSERT_EQ(log.timers.size(), 1u);
  EXPECT_EQ(log.timers[0].iteration, 45);
  ASSERT_EQ(log.timers[0].timers.size(), 2u);
  EXPECT_EQ(log.timers[0].timers[1].name, "forward-recv");
}

TEST(timer_lines, indented_name_value_lines_without_dot_padding_are_not_timers) {
  timer_value v;
  EXPECT_FALSE(parse_timer_entry("    train:      8000000", v));
  EXPECT_FALSE(parse_timer_entry("    validation: 80160", v));
  // A name of 47+ characters gets no dots, only the space ljust appends.
  ASSERT_TRUE(parse_timer_entry(
      "    optimizer-copy-main-to-model-params-and-more-stuff : (1.00, 2.00)", v));
  EXPECT_EQ(v.name, "optimizer-copy-main-to-model-params-and-more-stuff");
  const auto log = parse_text("(min, max) time across ranks (ms):\n"
                              "    load-checkpoint ................................: (1.19, 1.19)\n"
                              " > datasets target sizes (minimum size):\n"
                              "    train:      8000000\n");
  ASSERT_EQ(log.timers.size(), 1u);
  EXPECT_EQ(log.timers[0].timers.size(), 1u);
}

TEST(timer_lines, a_new_iteration_line_closes_the_block) {
  const auto log =
      parse_text(std::string(iteration_45) +
                 "max time across ranks (ms):\n"
                 "    optimizer ......................................: 1.00\n" +
                 iteration_45 + "    optimizer ......................................: 9.00\n");
  ASSERT_EQ(log.timers.size(), 1u);
  EXPECT_EQ(log.timers[0].timers.size(), 1u);
}

} // namespace
} // namespace paratune
