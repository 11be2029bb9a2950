// report_memory() lines (notes/input_formats.md §1.2).

#include <gtest/gtest.h>

#include "adapters/megatron/memory_line.hpp"
#include "tests/megatron/parse_text.hpp"

namespace paratune {
namespace {

using test::parse_text;

TEST(memory_line, core_0_16_two_decimals_with_device_memory_suffix) {
  const auto log = parse_text(
      "[Rank 3] (after 10 iterations) memory (MB) | allocated: 1024.50 | max allocated: 2048.25 "
      "| reserved: 3072.00 | max reserved: 4096.00 | total device memory used: 5000.00\n");
  ASSERT_EQ(log.memory.size(), 1u);
  const auto& m = log.memory[0];
  EXPECT_EQ(m.rank, 3);
  EXPECT_EQ(m.iteration, 10);
  EXPECT_DOUBLE_EQ(m.allocated_mib, 1024.5);
  EXPECT_DOUBLE_EQ(m.max_allocated_mib, 2048.25);
  EXPECT_DOUBLE_EQ(m.reserved_mib, 3072.0);
  EXPECT_DOUBLE_EQ(m.max_reserved_mib, 4096.0);
  EXPECT_DOUBLE_EQ(*m.device_used_mib, 5000.0);
  EXPECT_EQ(m.line, 1);
}

TEST(memory_line, raw_floats_of_0_15_and_older) {
  const auto log = parse_text(
      "[Rank 0] (after 20 iterations) memory (MB) | allocated: 48465.275390625 | max allocated: "
      "75078.4326171875 | reserved: 75682.0 | max reserved: 75682.0\n");
  ASSERT_EQ(log.memory.size(), 1u);
  EXPECT_DOUBLE_EQ(log.memory[0].max_allocated_mib, 75078.4326171875);
  EXPECT_FALSE(log.memory[0].device_used_mib.has_value());
}

TEST(memory_line, several_ranks_glued_on_one_line_split_on_rank_tag) {
  std::vector<memory_record> out;
  const auto n = parse_memory_line(
      "[Rank 7] (after 20 iterations) memory (MB) | allocated: 1.0 | max allocated: 2.0 | "
      "reserved: 3.0 | max reserved: 4.0[Rank 6] (after 20 iterations) memory (MB) | allocated: "
      "5.0 | max allocated: 6.0 | reserved: 7.0 | max reserved: 8.0[Rank 5] (after 20 "
      "iterations) memory (MB) | allocated: 9.0 | max allocated: 10.0 | reserved: 11.0 | max "
      "reserved: 12.0",
      42, out);
  ASSERT_EQ(n, 3u);
  EXPECT_EQ(out[0].rank, 7);
  EXPECT_DOUBLE_EQ(out[0].max_reserved_mib, 4.0); // not confused by the glued "[Rank 6]"
  EXPECT_EQ(out[1].rank, 6);
  EXPECT_DOUBLE_EQ(out[1].allocated_mib, 5.0);
  EXPECT_EQ(out[2].rank, 5);
  EXPECT_DOUBLE_EQ(out[2].max_reserved_mib, 12.0);
  EXPECT_EQ(out[2].line, 42);
}

TEST(memory_line, launcher_prefixed_reports_and_callbacks) {
  megatron_log_parser p;
  int seen = 0;
  p.on_memory = [&](const memory_record& m) { seen += m.rank; };
  p.feed("[default1]:[Rank 1] (after 5 iterations) memory (MB) | allocated: 1 | max allocated: 2 "
         "| reserved: 3 | max reserved: 4\n"
         "[rank2]:[Rank 2] (after 5 iterations) memory (MB) | allocated: 1 | max allocated: 2 | "
         "reserved: 3 | max reserved: 4\n");
  p.finish();
  ASSERT_EQ(p.log().memory.size(), 2u);
  EXPECT_EQ(seen, 3);
}

TEST(memory_line, other_rank_tagged_lines_are_not_memory_reports) {
  const auto log = parse_text(
      "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, "
      "Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n"
      "[Rank 0] nothing to see\n");
  EXPECT_TRUE(log.memory.empty());
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::nccl_timeout);
}

} // namespace
} // namespace paratune
