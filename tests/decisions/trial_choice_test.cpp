// Which trials a report launches, and where: choose_trials over ledgers
// built in memory (the strategy generator sends what it returns).

#include <gtest/gtest.h>

#include "decisions/trial_choice.hpp"
#include "tests/decisions/decision_fixtures.hpp"

namespace paratune {
namespace {

using namespace test;

int mbs_of(const wire::proposal& p) { return wire::from_wire(p.config).mbs; }

TEST(TrialChoice, FillsEveryPoolsFreeSlotsInRankOrder) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 2), pool_named("b", 1)}));
  const auto report =
    report_ranking(1, 4, {ranked_as(1), ranked_as(2), ranked_as(3), ranked_as(4)});
  const auto chosen = choose_trials(report, *ledger_of(h).job(), ledger_of(h));
  // Three free slots: the pool with the most free slots first, then job order.
  ASSERT_EQ(chosen.size(), 3u);
  EXPECT_EQ(chosen[0].trial, 1);
  EXPECT_EQ(chosen[0].pool, "a");
  EXPECT_EQ(mbs_of(chosen[0]), 1);
  EXPECT_EQ(chosen[1].trial, 2);
  EXPECT_EQ(chosen[1].pool, "a");
  EXPECT_EQ(chosen[2].trial, 3);
  EXPECT_EQ(chosen[2].pool, "b");
  EXPECT_EQ(mbs_of(chosen[2]), 3);
  EXPECT_EQ(chosen[2].request, 1);
  EXPECT_EQ(chosen[2].change, "Set micro_batch_size to 3.");
}

TEST(TrialChoice, NeverRepeatsAConfigurationThatRunsNow) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 2)})).add(1, proposal_on(1, 2, "a"));
  const auto l = ledger_of(h);
  const auto chosen = choose_trials(report_ranking(2, 2, {ranked_as(2), ranked_as(3)}), *l.job(), l);
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen[0].trial, 2);
  EXPECT_EQ(mbs_of(chosen[0]), 3);
}

TEST(TrialChoice, RetriesAFailedTrialFirstOnAnotherPool) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 1), pool_named("b", 1)}))
    .add(1, proposal_on(1, 4, "a"))
    .add(1, failed_on(1, 4, "a", failure_kind::nccl_timeout))
    .add(1, worth_a_retry(1, failure_kind::nccl_timeout));
  const auto l = ledger_of(h);
  ASSERT_EQ(retries_due(l).size(), 1u);
  const auto chosen = choose_trials(report_ranking(2, 2, {ranked_as(5)}), *l.job(), l);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0].trial, 2);
  EXPECT_EQ(chosen[0].retry_of, 1);
  EXPECT_EQ(chosen[0].group, candidate_group::retry);
  EXPECT_EQ(chosen[0].pool, "b");
  EXPECT_EQ(mbs_of(chosen[0]), 4);
  EXPECT_EQ(chosen[0].why, "trial 1 failed on pool 'a' for a reason that says nothing about its "
                           "configuration: NCCL watchdog timeout on one rank");
  EXPECT_EQ(chosen[1].trial, 3);
  EXPECT_EQ(chosen[1].pool, "a");
  EXPECT_EQ(mbs_of(chosen[1]), 5);
}

/// Trial 1 failed on pool a and is due a retry; trial 2 runs on b.
history_builder retry_waiting_for_b(int budget) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 1), pool_named("b", 1)}, budget))
    .add(1, proposal_on(1, 4, "a"))
    .add(1, failed_on(1, 4, "a", failure_kind::nccl_timeout))
    .add(1, worth_a_retry(1, failure_kind::nccl_timeout))
    .add(2, proposal_on(2, 2, "b"));
  return h;
}

TEST(TrialChoice, ARetryThatWaitsForAnotherPoolKeepsItsBudget) {
  // Budget 3: the retry waits for b, and the last trial of the budget is
  // its, so nothing new is launched on a.
  const auto l = ledger_of(retry_waiting_for_b(3));
  EXPECT_TRUE(choose_trials(report_ranking(2, 1, {ranked_as(5)}), *l.job(), l).empty());
  // With a budget of 4 there is room for both.
  const auto l4 = ledger_of(retry_waiting_for_b(4));
  const auto chosen = choose_trials(report_ranking(2, 1, {ranked_as(5)}), *l4.job(), l4);
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen[0].pool, "a");
  EXPECT_EQ(mbs_of(chosen[0]), 5);
}

TEST(TrialChoice, ATrialIsRetriedOnceAndARetryNever) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 2)}))
    .add(1, proposal_on(1, 4, "a"))
    .add(1, failed_on(1, 4, "a", failure_kind::node_failure))
    .add(1, worth_a_retry(1, failure_kind::node_failure));
  EXPECT_EQ(retries_due(ledger_of(h)).size(), 1u);
  auto retry = proposal_on(2, 4, "a");
  retry.retry_of = 1;
  auto failed_again = failed_on(2, 4, "a", failure_kind::node_failure);
  failed_again.retry_of = 1;
  h.add(2, retry).add(2, failed_again).add(2, worth_a_retry(2, failure_kind::node_failure));
  EXPECT_TRUE(retries_due(ledger_of(h)).empty());
  // A failure the analyst tied to the configuration is not retried.
  history_builder oom;
  oom.add(0, job_on({pool_named("a", 1)}))
    .add(1, proposal_on(1, 8, "a"))
    .add(1, failed_on(1, 8, "a", failure_kind::oom))
    .add(1, wire::failure_diagnosis{1, failure_kind::oom, {"micro_batch_size"}, 95, false,
                                    "MBS 8 ran out of memory"});
  EXPECT_TRUE(retries_due(ledger_of(oom)).empty());
}

TEST(TrialChoice, ARunInterruptedByARestartSpendsItsBudgetOnce) {
  wire::trial_result done;
  done.trial = 1;
  done.status = trial_status::succeeded;
  done.tflops_per_gpu = 200;
  done.config = config_with_mbs(1);
  done.pool = "a";
  history_builder h;
  h.add(0, job_on({pool_named("a", 4)}, 2))
    .add(1, proposal_on(1, 1, "a"))
    .add(1, wire::trial_started{1, config_with_mbs(1), {"sim"}, "a"})
    .add(1, wire::trial_interrupted{1, "its run was lost with the daemon that watched it"})
    .add(1, wire::trial_started{1, config_with_mbs(1), {"sim"}, "a"})
    .add(1, done);
  const auto l = ledger_of(h);
  EXPECT_EQ(l.trials_used(), 1);
  const auto chosen =
    choose_trials(report_ranking(2, 4, {ranked_as(2), ranked_as(3), ranked_as(4)}), *l.job(), l);
  ASSERT_EQ(chosen.size(), 1u); // budget 2, one spent
  EXPECT_EQ(chosen[0].trial, 2);
}

TEST(TrialChoice, OneTightConfigurationAtATime) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 4)}));
  const auto l = ledger_of(h);
  const double limit = wire::from_wire(l.job()->cluster).memory_mib();
  const double tight = 0.95 * limit; // within the model's measured error of the device
  const auto report = report_ranking(
    1, 4, {ranked_as(8, tight), ranked_as(6, tight), ranked_as(2, 0.5 * limit)});
  const auto chosen = choose_trials(report, *l.job(), l);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(mbs_of(chosen[0]), 8);
  EXPECT_EQ(mbs_of(chosen[1]), 2);
  // While that one runs, no other tight one is risked.
  auto first = proposal_on(1, 8, "a");
  first.predicted_peak_mib = tight;
  h.add(1, first);
  const auto running = ledger_of(h);
  const auto next = choose_trials(report_ranking(2, 3, {ranked_as(6, tight), ranked_as(3, 0.4 * limit)}),
                                  *running.job(), running);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(mbs_of(next[0]), 3);
}

TEST(TrialChoice, APoolThatNeverStartsItsTrialsIsPausedAndNamed) {
  history_builder h;
  h.add(0, job_on({pool_named("h100", 1, pool_kind::slurm), pool_named("a100", 1)}));
  for (int t = 1; t <= 3; ++t)
    h.add(t, proposal_on(t, t, "h100")).add(t, failed_on(t, t, "h100", failure_kind::launcher_error));
  const auto l = ledger_of(h);
  const auto loads = pool_loads(*l.job(), l);
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_TRUE(loads[0].paused);
  EXPECT_TRUE(loads[0].down);
  EXPECT_FALSE(loads[1].paused);
  EXPECT_EQ(paused_pools_text(loads, l),
            "pool 'h100': 3 trials in a row never started (last: sbatch: error: invalid "
            "partition specified: h100)");
  const auto chosen =
    choose_trials(report_ranking(2, 2, {ranked_as(5), ranked_as(6)}), *l.job(), l);
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen[0].pool, "a100");
  EXPECT_EQ(chosen[0].trial, 4);
}

TEST(TrialChoice, AJobWithoutPoolsRunsOneSimulatedTrialAtATime) {
  history_builder h;
  h.add(0, job_on({}));
  const auto l = ledger_of(h);
  const auto loads = pool_loads(*l.job(), l);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].name, "sim");
  EXPECT_EQ(loads[0].capacity, 1);
  const auto chosen = choose_trials(report_ranking(1, 3, {ranked_as(1), ranked_as(2)}), *l.job(), l);
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen[0].pool, "sim");
}

} // namespace
} // namespace paratune
