// Times and counts as text output prints them (issue 27: "1536699.5 ms",
// "1 trials").

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/human_units.hpp"

namespace paratune {
namespace {

TEST(human_duration, picks_the_unit_that_keeps_three_digits) {
  EXPECT_EQ(human_duration(0), "0 ms");
  EXPECT_EQ(human_duration(850.4), "850 ms");
  EXPECT_EQ(human_duration(999.4), "999 ms");
  EXPECT_EQ(human_duration(999.6), "1.00 s");
  EXPECT_EQ(human_duration(1536.7), "1.54 s");
  EXPECT_EQ(human_duration(12500), "12.5 s");
  EXPECT_EQ(human_duration(59940), "59.9 s");
  EXPECT_EQ(human_duration(60000), "1.0 min");
  EXPECT_EQ(human_duration(1536699.5), "25.6 min"); // the iteration time
  EXPECT_EQ(human_duration(3600000), "1.0 h");
  EXPECT_EQ(human_duration(-1), "-");
  EXPECT_EQ(human_duration(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(count_of, is_singular_for_one_alone) {
  EXPECT_EQ(count_of(0, "trial"), "0 trials");
  EXPECT_EQ(count_of(1, "trial"), "1 trial");
  EXPECT_EQ(count_of(20, "trial"), "20 trials");
}

} // namespace
} // namespace paratune
