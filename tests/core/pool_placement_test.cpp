#include <gtest/gtest.h>

#include "core/pool_placement.hpp"

namespace paratune {
namespace {

std::vector<pool_load> two_pools(int a_busy, int b_busy) {
  return {{"a100", 2, a_busy, false}, {"h100", 2, b_busy, false}};
}

TEST(pool_placement, spreads_trials_over_the_pool_with_most_free_slots) {
  EXPECT_EQ(free_slots(two_pools(0, 0)), 4);
  EXPECT_EQ(place_trial(two_pools(0, 0)), 0u);  // a tie: job order
  EXPECT_EQ(place_trial(two_pools(1, 0)), 1u);
  EXPECT_EQ(place_trial(two_pools(1, 1)), 0u);
  EXPECT_EQ(free_slots(two_pools(2, 1)), 1);
  EXPECT_EQ(place_trial(two_pools(2, 1)), 1u);
  EXPECT_EQ(place_trial(two_pools(2, 2)), std::nullopt);
  EXPECT_EQ(free_slots(two_pools(2, 2)), 0);
}

TEST(pool_placement, a_retry_avoids_the_pool_it_failed_on_and_waits_for_the_other) {
  EXPECT_EQ(place_trial(two_pools(0, 0), "a100"), 1u);
  EXPECT_EQ(place_trial(two_pools(0, 2), "a100"), std::nullopt);  // h100 is full: wait
  // With one pool, the retry runs where the trial failed.
  EXPECT_EQ(place_trial({{"sim", 1, 0, false}}, "sim"), 0u);
  // The other pool is down: the retry runs where it failed.
  auto pools = two_pools(0, 0);
  pools[1].down = true;
  EXPECT_EQ(place_trial(pools, "a100"), 0u);
}

TEST(pool_placement, a_pool_that_is_down_gets_no_trial_while_another_is_up) {
  auto pools = two_pools(0, 0);
  pools[0].down = true;
  EXPECT_EQ(free_slots(pools), 2);
  EXPECT_EQ(place_trial(pools), 1u);
  pools[1].in_flight = 2;
  EXPECT_EQ(place_trial(pools), std::nullopt);
  EXPECT_EQ(free_slots(pools), 0);
  // Every pool down: all slots count again (a scheduler may come back).
  pools[1] = {"h100", 2, 0, true};
  EXPECT_EQ(free_slots(pools), 4);
  EXPECT_EQ(place_trial(pools), 0u);
}

} // namespace
} // namespace paratune
