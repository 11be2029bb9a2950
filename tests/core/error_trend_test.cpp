#include "core/tuning/error_trend.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace paratune {
namespace {

training_config split_of(int tp, int pp, int mbs) {
  training_config c;
  c.tp = tp;
  c.pp = pp;
  c.mbs = mbs;
  return c;
}

TEST(error_trend, with_one_run_is_that_runs_bias_everywhere) {
  error_trend t;
  t.add(split_of(1, 2, 1), std::log(2.6));
  t.fit(0.06, 0.06);
  EXPECT_NEAR(t.at(split_of(1, 2, 1)), std::log(2.6), 1e-12);
  EXPECT_NEAR(t.at(split_of(8, 1, 4)), std::log(2.6), 1e-12);
  EXPECT_DOUBLE_EQ(t.spread(), 0);
  EXPECT_NEAR(t.mean(), std::log(2.6), 1e-12);
  // Unvaried degrees keep their prior: two doublings of micro batch away,
  // the trend is uncertain by the prior times two (and the mean's 6%).
  EXPECT_NEAR(t.sd_at(split_of(1, 2, 4)), std::hypot(0.06, 2 * 0.06), 1e-9);
  EXPECT_NEAR(t.sd_at(split_of(1, 2, 1)), 0.06, 1e-9);
}

TEST(error_trend, learns_a_slope_the_runs_support_and_extrapolates_it) {
  // The model is 3.5x too fast at micro batch 1, 2.5x at 2, 1.8x at 4
  // (vTrain's h1024 tables): about -0.33 in log ratio per doubling.
  error_trend t;
  t.add(split_of(2, 2, 1), std::log(3.5));
  t.add(split_of(2, 2, 2), std::log(2.5));
  t.add(split_of(2, 2, 4), std::log(1.8));
  t.fit(0.06, 0.5);
  const double slope = (t.at(split_of(2, 2, 4)) - t.at(split_of(2, 2, 1))) / 2;
  EXPECT_NEAR(slope, -0.332, 0.01);
  EXPECT_NEAR(t.at(split_of(2, 2, 8)), std::log(1.8) - 0.332, 0.03);
  // TP never varied: it neither moves the trend nor is known.
  EXPECT_NEAR(t.at(split_of(8, 2, 2)), t.at(split_of(2, 2, 2)), 1e-12);
  EXPECT_GT(t.sd_at(split_of(8, 2, 2)), 0.9);          // 2 doublings x 0.5 prior
  EXPECT_LT(t.sd_at(split_of(2, 2, 2)), 0.04);         // inside the runs
  EXPECT_NEAR(t.spread(), 0.3325, 0.002);
}

TEST(error_trend, a_tight_prior_keeps_the_slope_near_zero) {
  error_trend t;
  t.add(split_of(1, 1, 1), 0.0);
  t.add(split_of(1, 1, 2), -0.02);  // a 2% step, within the model's error
  t.fit(0.06, 0.01);
  const double slope = t.at(split_of(1, 1, 2)) - t.at(split_of(1, 1, 1));
  EXPECT_LT(std::abs(slope), 0.002);
  EXPECT_NEAR(t.at(split_of(1, 1, 1)) + t.at(split_of(1, 1, 2)), -0.02, 1e-9); // the mean holds
}

} // namespace
} // namespace paratune
