// The vTrain reality of bench_tuning_quality (vtrain_scenarios.hpp): a
// trial replays the measurement exactly, a configuration outside the
// measured set is refused before launch at no trial cost, and the
// strategies count refusals apart from their budget.

#include <gtest/gtest.h>

#include "bench/tuning_quality/metrics.hpp"
#include "bench/tuning_quality/model_grid.hpp"
#include "bench/tuning_quality/vtrain_scenarios.hpp"

namespace paratune::bench {
namespace {

const std::vector<scenario>& landscapes() {
  static const auto all = load_vtrain_scenarios(std::string(PARATUNE_SOURCE_DIR) + "/data");
  return all;
}

TEST(vtrain_replay, has_the_124_landscapes_of_at_least_4_configurations) {
  ASSERT_EQ(landscapes().size(), 124u);
  for (const auto& s : landscapes()) {
    EXPECT_GE(s.space.size(), 4u) << s.job.name;
    EXPECT_EQ(s.context.world_size, s.job.nodes * s.job.cluster.devices_per_node);
    ASSERT_GE(s.optimum, 0) << s.job.name;
  }
}

TEST(vtrain_replay, a_trial_is_exactly_what_was_measured) {
  const auto& s = landscapes().front();
  const trial_runner runner(s, 0.5);  // the failure rate does not apply to a replay
  for (size_t i = 0; i < s.space.size(); ++i) {
    const auto r = runner.run(s.space[i], 1000 + i);
    ASSERT_EQ(r.outcome.status, trial_status::succeeded) << i;
    EXPECT_EQ(r.outcome.tflops_per_gpu, s.truth[i].truth.tflops_per_gpu);
    EXPECT_FALSE(r.unavailable);
  }
}

TEST(vtrain_replay, an_unmeasured_configuration_is_refused_and_costs_nothing) {
  // The first landscape whose product of measured values holds a valid
  // configuration the table lacks.
  const scenario* found = nullptr;
  std::optional<training_config> missing;
  for (const auto& s : landscapes()) {
    for (const auto& tp : s.context.search.at("tp"))
      for (const auto& pp : s.context.search.at("pp"))
        for (const auto& mbs : s.context.search.at("mbs")) {
          training_config c = s.context.initial;
          set_value(c, "tp", tp);
          set_value(c, "pp", pp);
          set_value(c, "mbs", mbs);
          if (!missing && s.index_of(c) < 0
              && check_megatron_rules(s.context.model, c, s.context.world_size).empty())
            missing = c;
        }
    if (missing) {
      found = &s;
      break;
    }
  }
  ASSERT_TRUE(missing) << "some landscape lacks a configuration of its product";
  const auto& s = *found;
  const trial_runner runner(s, 0);
  const auto r = runner.run(*missing, 1);
  EXPECT_TRUE(r.unavailable);
  EXPECT_EQ(r.outcome.status, trial_status::skipped);
  EXPECT_EQ(r.wall_s, 0);
  // In a log, it counts as a refusal, not as one of the budget's trials.
  trial_log log = {runner.run(s.space[0], 1), r, runner.run(s.space[1], 2)};
  const auto m = measure_run(log, 2, s.optimum_tflops, s.context.world_size);
  EXPECT_EQ(m.trials, 2);
  EXPECT_EQ(m.refused, 1);
}

TEST(vtrain_replay, every_strategy_spends_its_budget_on_measured_configurations) {
  for (const auto& s : landscapes()) {
    if (s.space.size() < 12)
      continue;
    const trial_runner runner(s, 0);
    for (const auto& log : {run_paratune(s, runner, 10, 7), run_model_grid(s, runner, 10, 7),
                            run_random(s, runner, 10, 7), run_coordinate(s, runner, 10, 7)}) {
      EXPECT_LE(trials_spent(log), 10);
      for (const auto& t : log)
        EXPECT_EQ(t.unavailable, s.index_of(t.outcome.config) < 0) << s.job.name;
    }
    return;  // one landscape with room for a budget of 10 is enough
  }
  FAIL() << "no landscape with 12 measured configurations";
}

} // namespace
} // namespace paratune::bench
