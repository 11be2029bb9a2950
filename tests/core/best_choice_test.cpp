// The rule that picks a session's answer among trials that measured within
// noise of each other (issue 45, part 3): more memory headroom, then the
// simpler configuration, then the higher measurement, then the earlier trial.

#include <gtest/gtest.h>

#include "core/best_choice.hpp"

namespace paratune {
namespace {

TEST(BestChoice, WithinNoiseIsOnePercentOfTheHigher) {
  EXPECT_TRUE(within_noise(236.1, 236.1));
  EXPECT_TRUE(within_noise(236.1, 235.2));   // 0.4% apart
  EXPECT_TRUE(within_noise(100, 99));        // exactly 1%
  EXPECT_FALSE(within_noise(236.1, 232.1));  // 1.7% apart
  EXPECT_FALSE(within_noise(0, 0));
}

TEST(BestChoice, NonDefaultKeysCountWhatATrainingConfigDoesNotHoldByDefault) {
  EXPECT_EQ(non_default_keys({{"tp", "1"}, {"pp", "1"}, {"overlap_grad", "false"}}), 0);
  EXPECT_EQ(non_default_keys({{"tp", "2"}, {"overlap_grad", "true"}, {"recompute", "none"}}), 2);
  EXPECT_EQ(non_default_keys({{"recompute", "sel"}}), 1);  // selective, spelled short
  EXPECT_EQ(non_default_keys({{"not_a_key", "1"}}), 1);
}

TEST(BestChoice, NoTieTheHighestMeasurementAndNoSentence) {
  const std::vector<measured_option> o = {{1, 118, 24000, 81920, 3}, {2, 236.1, 73216, 81920, 5},
                                          {3, 232.1, 58208, 81920, 5}};
  const auto c = choose_best(o);
  EXPECT_EQ(c.trial, 2);
  EXPECT_EQ(c.fastest, 2);
  EXPECT_TRUE(c.tied.empty());
  EXPECT_EQ(c.by, tie_break::none);
  EXPECT_EQ(tie_sentence(c, o), "");
  EXPECT_EQ(choose_best({}).trial, 0);
}

// The tour's trials 3 and 6: the same throughput and peak; trial 6 turned
// gradient-reduction overlap on.
TEST(BestChoice, SameHeadroomTheSimplerConfiguration) {
  const std::vector<measured_option> o = {{3, 236.1, 73216, 81920, 5}, {6, 236.1, 73216, 81920, 6}};
  const auto c = choose_best(o);
  EXPECT_EQ(c.trial, 3);
  EXPECT_EQ(c.tied, (std::vector<int>{3, 6}));
  EXPECT_EQ(c.runner_up, 6);
  EXPECT_EQ(c.by, tie_break::simpler);
  EXPECT_EQ(c.fewer_keys, 1);
  EXPECT_EQ(tie_sentence(c, o),
            "Trials 3 and 6 measured within noise of each other (236.1 vs 236.1 TFLOP/s/GPU, "
            "within 1%); trial 3 is chosen as the simpler configuration: 1 key fewer off its "
            "default than trial 6, at the same memory headroom.");
}

TEST(BestChoice, MoreHeadroomWinsOverAHigherMeasurementWithinNoise) {
  const std::vector<measured_option> o = {{3, 236.1, 73216, 81920, 5}, {4, 235.2, 53868, 81920, 6},
                                          {6, 236.1, 73216, 81920, 6}, {5, 232.1, 58208, 81920, 5}};
  const auto c = choose_best(o);
  EXPECT_EQ(c.trial, 4);
  EXPECT_EQ(c.fastest, 3);
  EXPECT_EQ(c.tied, (std::vector<int>{3, 4, 6}));  // trial 5 is 1.7% below: not tied
  EXPECT_EQ(c.runner_up, 3);                       // set against the fastest
  EXPECT_EQ(c.by, tie_break::headroom);
  EXPECT_DOUBLE_EQ(c.headroom_gain_mib, 73216 - 53868);
  EXPECT_EQ(tie_sentence(c, o),
            "Trials 3, 4 and 6 measured within noise of each other (236.1, 235.2 and 236.1 "
            "TFLOP/s/GPU, within 1%); trial 4 is chosen for 18.9 GiB more memory headroom than "
            "trial 3, the highest measurement.");
}

TEST(BestChoice, HeadroomUnderAGibIsTheSameThenTheHigherThenTheEarlier) {
  // 500 MiB apart counts as the same headroom; equally simple: the higher.
  auto c = choose_best({{1, 200, 60000, 81920, 4}, {2, 199, 59500, 81920, 4}});
  EXPECT_EQ(c.trial, 1);
  EXPECT_EQ(c.by, tie_break::throughput);
  // Identical in everything: the earlier trial.
  c = choose_best({{7, 200, 60000, 81920, 4}, {2, 200, 60000, 81920, 4}});
  EXPECT_EQ(c.trial, 2);
  EXPECT_EQ(c.by, tie_break::earlier);
  // No peak reported: headroom cannot decide; the simpler one wins, and the
  // sentence says memory was not reported.
  const std::vector<measured_option> o = {{1, 200, 0, 0, 5}, {2, 199.5, 0, 0, 3}};
  c = choose_best(o);
  EXPECT_EQ(c.trial, 2);
  EXPECT_EQ(c.by, tie_break::simpler);
  EXPECT_FALSE(c.headroom_known);
  EXPECT_NE(tie_sentence(c, o).find("2 keys fewer off their defaults than trial 1, their peak "
                                    "memory not reported."),
            std::string::npos)
    << tie_sentence(c, o);
  // Without the device's memory, the lower peak is the more headroom.
  c = choose_best({{1, 200, 70000, 0, 3}, {2, 199, 60000, 0, 5}});
  EXPECT_EQ(c.trial, 2);
  EXPECT_EQ(c.by, tie_break::headroom);
  EXPECT_DOUBLE_EQ(c.headroom_gain_mib, 10000);
}

} // namespace
} // namespace paratune
