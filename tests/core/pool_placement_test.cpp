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

TEST(pool_placement, a_paused_pool_gets_no_trial_even_when_every_pool_is_down) {
  auto pools = two_pools(0, 0);
  pools[0].paused = pools[0].down = true;
  EXPECT_EQ(free_slots(pools), 2);
  EXPECT_EQ(place_trial(pools), 1u);
  EXPECT_FALSE(all_paused(pools));
  // The other pool down too: only its slots, never the paused pool's.
  pools[1].down = true;
  EXPECT_EQ(free_slots(pools), 2);
  EXPECT_EQ(place_trial(pools), 1u);
  // A retry of a trial that failed on the other pool goes back to it.
  EXPECT_EQ(place_trial(pools, "h100"), 1u);
  pools[1].paused = true;
  EXPECT_EQ(free_slots(pools), 0);
  EXPECT_EQ(place_trial(pools), std::nullopt);
  EXPECT_TRUE(all_paused(pools));
  EXPECT_FALSE(all_paused({}));
}

} // namespace
} // namespace paratune
