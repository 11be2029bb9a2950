#include "core/tuning/session_stop.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace paratune {
namespace {

session_stop_policy rule(double min_gain = 0.01, double confidence = 0.9) {
  return {session_stop_mode::converged, min_gain, confidence};
}

session_stop_inputs against_100(std::vector<session_stop_candidate> candidates) {
  session_stop_inputs in;
  in.incumbent_tflops = 100;
  in.incumbent_trial = 4;
  in.checks = session_stop_min_checks;
  in.candidates = std::move(candidates);
  return in;
}

/// The z of the normal's upper 10% tail.
constexpr double z_10 = 1.2815515655446004;

TEST(session_stop, a_candidate_predicted_at_the_margin_is_an_even_chance_and_holds_it_back) {
  const session_stop_candidate c{"Change MBS from 1 to 2.", 101, 0.05, 1, false};
  EXPECT_NEAR(chance_of_gain(c, 100, 0.01, 1), 0.5, 1e-12);
  const auto d = decide_stop(rule(), against_100({c}));
  EXPECT_FALSE(d.stop);
  EXPECT_NEAR(d.chance_any, 0.5, 1e-12);
  EXPECT_EQ(d.reason.rfind("going on: the best of 1 candidate(s) left has a 50.0% chance", 0), 0u)
    << d.reason;
}

TEST(session_stop, fires_exactly_where_the_chance_reaches_one_minus_the_confidence) {
  // 101 TFLOP/s/GPU is the margin; z_10 sigmas below it the chance is 10%.
  const double at = 101 * std::exp(-z_10 * 0.05);
  EXPECT_NEAR(chance_of_gain({"x", at, 0.05, 1, false}, 100, 0.01, 1), 0.1, 1e-9);
  EXPECT_FALSE(decide_stop(rule(), against_100({{"x", at * 1.001, 0.05, 1, false}})).stop);
  const auto d = decide_stop(rule(), against_100({{"x", at * 0.999, 0.05, 1, false}}));
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason.rfind("converged: the best of 1 candidate(s) left has a 9.7% chance of "
                           "beating trial 4 (100.0 TFLOP/s/GPU) by more than 1.0%, within the "
                           "10.0% a 90% confidence allows", 0), 0u) << d.reason;
}

TEST(session_stop, each_candidate_is_judged_on_its_own) {
  // 6% each: flag variants of one split err together, so two of them are
  // not a 11.64% chance; one at 12% holds it back.
  const double six = 101 * std::exp(-0.05 * 1.5547735945968535);  // upper tail 6%
  const session_stop_candidate c{"x", six, 0.05, 1, false};
  EXPECT_NEAR(chance_of_gain(c, 100, 0.01, 1), 0.06, 1e-9);
  const auto two = decide_stop(rule(), against_100({c, c}));
  EXPECT_TRUE(two.stop);
  EXPECT_NEAR(two.chance_any, 0.06, 1e-9);
  const double twelve = 101 * std::exp(-0.05 * 1.1749867920660904);  // upper tail 12%
  const auto three = decide_stop(rule(), against_100({c, {"y", twelve, 0.05, 1, false}, c}));
  EXPECT_FALSE(three.stop);
  EXPECT_NEAR(three.chance_any, 0.12, 1e-9);
}

TEST(session_stop, the_chance_of_fitting_and_the_sessions_error_weigh_in) {
  // An even chance of beating the margin, but a 15% chance of fitting.
  EXPECT_NEAR(chance_of_gain({"x", 101, 0.05, 0.15, false}, 100, 0.01, 1), 0.075, 1e-12);
  EXPECT_TRUE(decide_stop(rule(), against_100({{"x", 101, 0.05, 0.15, false}})).stop);
  // 95 TFLOP/s/GPU known to 2%: 3 sigmas below the margin, a 0.11% chance.
  const session_stop_candidate below{"Change TP from 2 to 4.", 95, 0.02, 1, false};
  auto in = against_100({below});
  EXPECT_TRUE(decide_stop(rule(), in).stop);
  // Predictions three times as far off as they said: 15.4%, go on.
  in.sigma_scale = 3;
  const auto d = decide_stop(rule(), in);
  EXPECT_FALSE(d.stop);
  EXPECT_NEAR(d.chance_any, 0.5 * std::erfc(std::log(101.0 / 95) / 0.06 / std::sqrt(2.0)), 1e-12);
  ASSERT_EQ(d.best_left.size(), 1u);
  EXPECT_NE(d.reason.find("Change TP from 2 to 4. expected at 95.0 TFLOP/s/GPU (-5.0%, +-6.0%)"),
            std::string::npos) << d.reason;
}

TEST(session_stop, a_larger_margin_stops_sooner_and_a_running_trial_counts) {
  const session_stop_candidate running{"trial 7 (Change PP from 2 to 1.)", 103, 0.03, 1, true};
  EXPECT_FALSE(decide_stop(rule(0.01), against_100({running})).stop);
  const auto d = decide_stop(rule(0.10), against_100({running}));
  EXPECT_TRUE(d.stop);
  EXPECT_NE(d.reason.find("trial 7 (Change PP from 2 to 1.) (running)"), std::string::npos);
}

TEST(session_stop, never_under_stop_budget_nor_before_a_measured_run) {
  const session_stop_candidate hopeless{"x", 50, 0.01, 1, false};
  EXPECT_FALSE(decide_stop(session_stop_policy::budget(), against_100({hopeless})).stop);
  EXPECT_TRUE(decide_stop(rule(), against_100({hopeless})).stop);
  auto nothing_measured = against_100({hopeless});
  nothing_measured.incumbent_tflops = 0;
  EXPECT_FALSE(decide_stop(rule(), nothing_measured).stop);
}

TEST(session_stop, holds_back_until_two_predictions_were_held_against_a_run) {
  auto in = against_100({{"x", 50, 0.01, 1, false}});
  in.checks = 1;
  const auto d = decide_stop(rule(), in);
  EXPECT_FALSE(d.stop);
  EXPECT_EQ(d.reason, "going on: the model's error on this session is not known yet (1 of 2 "
                      "predictions held against a run)");
  in.checks = 2;
  EXPECT_TRUE(decide_stop(rule(), in).stop);
}

/// vtrain-h6144-l40-a48-s2048-g256-b1024 after three trials: trial 1 at
/// 95.3 TFLOP/s/GPU, the model's predictions held against trials 2 and 3
/// (z -0.74 and +1.23: a scale of 1.015 on two checks), and the table's
/// optimum, TP 8 PP 1 MBS 8 (99.5 measured), expected at 88.8 +-6.0%.
session_stop_inputs vtrain_after_three_trials(double dof) {
  // incumbent, its trial, scale, checks, degrees of freedom
  return {95.3, 1, 1.015, 2, dof,
          {{"Change TP from 4 to 8, PP from 2 to 1 and MBS from 2 to 8.", 88.8, 0.060, 1, false}}};
}

TEST(session_stop, a_scale_measured_on_two_checks_has_heavy_tails_and_holds_the_stop_back) {
  // The scale taken as known: z = 1.323, a normal's 9.29%, and the stop
  // fired at 95.7% of the optimum.
  const auto known = decide_stop(rule(), vtrain_after_three_trials(0));
  EXPECT_TRUE(known.stop);
  EXPECT_NEAR(known.chance_any, 0.09286, 1e-4);
  // The scale rests on two checks: a Student-t with 2 degrees of freedom
  // gives the optimum 15.84%, and the session goes on.
  const auto two = decide_stop(rule(), vtrain_after_three_trials(2));
  EXPECT_FALSE(two.stop);
  EXPECT_NEAR(two.chance_any, 0.15837, 1e-4);
  // Twelve checks (the most the calibration keeps): 10.52%, close to the
  // normal's but still above the 10%.
  const auto twelve = decide_stop(rule(), vtrain_after_three_trials(12));
  EXPECT_NEAR(twelve.chance_any, 0.10519, 1e-4);
  EXPECT_FALSE(twelve.stop);
}

TEST(session_stop, heavy_tails_still_stop_on_a_candidate_well_below_the_best_run) {
  auto in = vtrain_after_three_trials(2);
  in.candidates[0].predicted_tflops = 80;  // 3.04 of its sigmas below the margin
  auto d = decide_stop(rule(), in);
  EXPECT_TRUE(d.stop);
  EXPECT_NEAR(d.chance_any, 0.04673, 1e-4);
  // 85: 2.04 sigmas, 8.90% on two checks, 3.19% on twelve.
  in.candidates[0].predicted_tflops = 85;
  d = decide_stop(rule(), in);
  EXPECT_TRUE(d.stop);
  EXPECT_NEAR(d.chance_any, 0.08898, 1e-4);
  in.scale_dof = 12;
  EXPECT_NEAR(decide_stop(rule(), in).chance_any, 0.03191, 1e-4);
}

TEST(session_stop, names_the_three_best_candidates_left_best_first) {
  const auto d = decide_stop(rule(), against_100({{"a", 90, 0.05, 1, false},
                                                  {"b", 99, 0.05, 1, false},
                                                  {"c", 80, 0.05, 1, false},
                                                  {"d", 97, 0.05, 1, false}}));
  ASSERT_EQ(d.best_left.size(), 3u);
  EXPECT_EQ(d.best_left[0].text, "b");
  EXPECT_EQ(d.best_left[1].text, "d");
  EXPECT_EQ(d.best_left[2].text, "a");
  EXPECT_GT(d.best_chances[0], d.best_chances[1]);
}

TEST(session_stop, a_candidate_the_stop_dismisses_waits_behind_the_one_that_holds_it) {
  // The ranking's first choice, a new split 10% below the best run at +-5%,
  // has a 1.1% chance; a flag toggle at +0.3% +-0.6%, 12.3%: it holds the
  // stop, so it runs first.
  const session_stop_candidate wide{"new split", 90, 0.05, 1, false};
  const session_stop_candidate toggle{"toggle", 100.3, 0.006, 1, false};
  const auto in = against_100({wide, toggle});
  const auto d = decide_stop(rule(), in);
  EXPECT_FALSE(d.stop);
  ASSERT_EQ(d.chances.size(), 2u);
  EXPECT_NEAR(d.chances[0], 0.01055, 1e-4);
  EXPECT_NEAR(d.chances[1], 0.12320, 1e-4);
  EXPECT_EQ(next_worth_running(d, in, 0), 1u);
  // A running trial is not run again, however strong its chance.
  auto running = in;
  running.candidates[1].running = true;
  EXPECT_EQ(next_worth_running(decide_stop(rule(), running), running, 0), 0u);
}

TEST(session_stop, while_the_stop_holds_the_best_chance_runs_first_whatever_the_ranking) {
  // Llama-3-70B on 64 H100s after its fifth trial: the ranking's expected
  // improvement prefers a new split 6% below the best run at +-20% (a 36.0%
  // chance); recomputing in chunks of two layers on the best run's split is
  // expected 1.8% above it at +-4.9% (a 56.4% chance), and runs first.
  const session_stop_candidate wide{"new split", 94, 0.20, 1, false};
  const session_stop_candidate chunks{"recompute_layers 2", 101.8, 0.049, 1, false};
  auto in = against_100({wide, chunks});
  auto d = decide_stop(rule(), in);
  ASSERT_EQ(d.chances.size(), 2u);
  EXPECT_NEAR(d.chances[0], 0.35975, 1e-4);
  EXPECT_NEAR(d.chances[1], 0.56396, 1e-4);
  EXPECT_EQ(next_worth_running(d, in, 0), 1u);
  // The ranking's choice stands when it has the best chance, and on a tie.
  EXPECT_EQ(next_worth_running(d, in, 1), 1u);
  in.candidates[0] = chunks;
  d = decide_stop(rule(), in);
  EXPECT_EQ(next_worth_running(d, in, 0), 0u);
  // When every candidate is dismissed the session stops, and nothing moves.
  in.candidates = {{"a", 90, 0.01, 1, false}, {"b", 95, 0.01, 1, false}};
  d = decide_stop(rule(), in);
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(next_worth_running(d, in, 0), 0u);
  // Nor before the stop weighs anything, nor under `stop: budget`.
  in = against_100({wide, chunks});
  in.checks = 0;
  d = decide_stop(rule(), in);
  EXPECT_TRUE(d.chances.empty());
  EXPECT_EQ(next_worth_running(d, in, 0), 0u);
  session_stop_policy budget;
  budget.mode = session_stop_mode::budget;
  in.checks = 5;
  EXPECT_EQ(next_worth_running(decide_stop(budget, in), in, 0), 0u);
}

} // namespace
} // namespace paratune
