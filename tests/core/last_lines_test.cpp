// The end of a job's output for a trial that failed before it trained.

#include <gtest/gtest.h>

#include "core/last_lines.hpp"

namespace paratune {
namespace {

TEST(last_lines, keeps_the_last_whole_lines_in_order_without_blank_ones) {
  const std::deque<std::string> out = {"starting", "",
                                       "/spool/job7/slurm_script: line 5: /no/such/trainer: No "
                                       "such file or directory",
                                       "  "};
  EXPECT_EQ(last_lines(out, 2, 400),
            "starting\n/spool/job7/slurm_script: line 5: /no/such/trainer: No such file or "
            "directory");
  EXPECT_EQ(last_lines(out, 1, 400),
            "/spool/job7/slurm_script: line 5: /no/such/trainer: No such file or directory");
}

TEST(last_lines, stops_at_the_byte_limit_with_whole_lines_and_keeps_a_long_last_line) {
  const std::deque<std::string> out = {"aaaa", "bbbb", "cccc"};
  EXPECT_EQ(last_lines(out, 5, 9), "bbbb\ncccc");
  EXPECT_EQ(last_lines(out, 5, 8), "cccc");
  EXPECT_EQ(last_lines(out, 5, 2), "cccc");
  EXPECT_EQ(last_lines({}, 5, 100), "");
}

} // namespace
} // namespace paratune
