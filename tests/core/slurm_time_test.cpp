// Slurm's --time formats (core/slurm_time.hpp), as sbatch(1) lists them.

#include <gtest/gtest.h>

#include "core/slurm_time.hpp"

namespace paratune {
namespace {

TEST(slurm_time, reads_every_format_sbatch_takes) {
  EXPECT_EQ(parse_slurm_time_minutes("90"), 90);             // minutes
  EXPECT_EQ(parse_slurm_time_minutes("90:30"), 91);          // minutes:seconds, rounded up
  EXPECT_EQ(parse_slurm_time_minutes("02:00:00"), 120);      // hours:minutes:seconds
  EXPECT_EQ(parse_slurm_time_minutes("1-00"), 1440);         // days-hours
  EXPECT_EQ(parse_slurm_time_minutes("1-02:30"), 1590);      // days-hours:minutes
  EXPECT_EQ(parse_slurm_time_minutes("0-00:00:01"), 1);      // days-hours:minutes:seconds
  EXPECT_EQ(parse_slurm_time_minutes("366-00"), 366 * 1440);
}

TEST(slurm_time, refuses_what_sbatch_would_not_read_or_a_limit_of_nothing) {
  for (const char* bad : {"", "0", "00:00:00", "1:2:3:4", "2h", "-5", "1-", "-1:00", "1-2-3",
                          "a:b", "1:", ":1", "367-00", "02:00:00 ", "UNLIMITED"})
    EXPECT_FALSE(parse_slurm_time_minutes(bad)) << bad;
}

} // namespace
} // namespace paratune
