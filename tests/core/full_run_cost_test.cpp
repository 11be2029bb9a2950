#include <gtest/gtest.h>

#include "core/full_run_cost.hpp"

namespace paratune {
namespace {

TEST(full_run_cost, llama3_8b_on_one_dgx_node) {
  // 15T tokens in global batches of 512 x 8192 = 4,194,304 tokens: 3,576,279
  // iterations; at 16.0 s each on 8 GPUs, 662.3 days and 127,160 GPU-hours.
  const auto c = cost_of_training(15e12, 512, 8192, 16000, 8);
  EXPECT_NEAR(c.iterations, 3576278.69, 0.01);
  EXPECT_NEAR(c.days, 662.274, 0.001);
  EXPECT_NEAR(c.gpu_hours, 127156.6, 0.1);
}

TEST(full_run_cost, halves_with_twice_the_pace) {
  const auto slow = cost_of_training(1e9, 256, 4096, 2000, 16);
  const auto fast = cost_of_training(1e9, 256, 4096, 1000, 16);
  EXPECT_DOUBLE_EQ(fast.gpu_hours * 2, slow.gpu_hours);
  EXPECT_DOUBLE_EQ(fast.iterations, slow.iterations);
}

TEST(full_run_cost, nothing_measured_costs_nothing) {
  EXPECT_EQ(cost_of_training(0, 512, 8192, 16000, 8).gpu_hours, 0);
  EXPECT_EQ(cost_of_training(15e12, 512, 8192, 0, 8).days, 0);
  EXPECT_EQ(cost_of_training(15e12, 512, 8192, -1, 8).iterations, 0);
}

} // namespace
} // namespace paratune
