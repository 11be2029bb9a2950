// The TPU searcher's decisions (decisions/tpu_session_step): what a TPU
// session does next, from its ledger alone, on ASAP's v6e-16 experiment.

#include <gtest/gtest.h>

#include "core/tpu/mesh_model.hpp"
#include "decisions/tpu_session_step.hpp"
#include "ledger/tpu_diagnosis.hpp"
#include "messages/codec.hpp"
#include "tests/diagnose/diagnose_support.hpp"

namespace paratune {
namespace {

struct tpu_step : ::testing::Test {
  experiment_spec exp = test::load_fixture_experiment(test::asap_dir("v6e-16-hbm"));
  session_ledger ledger{"s"};

  tpu_search search(int budget) const { return {&exp, budget, 2, 9000}; }

  void open(std::vector<std::string> pools = {}) {
    wire::tpu_session_opened o;
    o.budget = 8;
    o.chips = 16;
    for (const auto& name : pools) {
      wire::pool_wire p;
      p.name = name;
      p.kind = pool_kind::local;
      p.capacity = 1;
      o.pools.push_back(p);
    }
    ledger.apply(wire::make_envelope("s", 0, o));
  }

  template <class T>
  void apply(int trial, const T& body) {
    ledger.apply(wire::make_envelope("s", trial, body));
  }

  /// Trial n proposed on `pool` (its row and its proposal), then its result.
  void ran(int n, const std::string& mesh, const std::string& pool, wire::trial_result r) {
    wire::tpu_trial_row row;
    row.trial = n;
    row.mesh = mesh;
    row.pool = pool;
    row.started_ms = 1000;
    apply(n, row);
    wire::proposal p;
    p.trial = n;
    p.config = {{"mesh", mesh}};
    p.pool = pool;
    p.argv = {"train"};
    apply(n, p);
    r.trial = n;
    r.pool = pool;
    r.config = p.config;
    r.ended_at_ms = 2000;
    apply(n, r);
  }

  static wire::trial_result launch_failure() {
    wire::trial_result r;
    r.status = trial_status::failed;
    r.error_kind = failure_kind::launcher_error;
    r.exit_code = 127;
    r.error_message = "exec /no/train failed: No such file or directory";
    return r;
  }
};

TEST_F(tpu_step, the_first_trial_is_the_planners_fastest_mesh_on_the_simulated_pool) {
  open();
  const auto step = next_tpu_step(search(4), ledger);
  ASSERT_EQ(step.what, tpu_session_step::action::propose);
  EXPECT_EQ(step.trial, 1);
  EXPECT_EQ(step.mesh.mesh, parse_mesh("data=4,model=4"));
  EXPECT_EQ(step.pool, "simulated");
  EXPECT_EQ(step.retry_of, 0);
}

TEST_F(tpu_step, a_measured_result_makes_its_row_wait_for_the_diagnosis) {
  open();
  wire::trial_result r;
  r.status = trial_status::succeeded;
  r.iteration_ms = 250.5;
  r.iterations_scored = 2;
  r.gpu_hours = 0.134;
  ran(1, "data=4,model=4", "simulated", r);
  const auto step = next_tpu_step(search(4), ledger);
  ASSERT_EQ(step.what, tpu_session_step::action::store_row);
  EXPECT_TRUE(step.row.diagnosing);
  EXPECT_EQ(step.row.ended_ms, 0);
  EXPECT_EQ(step.row.step_time_ms, 250.5);
  EXPECT_DOUBLE_EQ(step.row.chip_hours, 0.134);
  EXPECT_DOUBLE_EQ(step.row.mfu,
                   measured_mesh_mfu(exp.model, exp.cluster, exp.slice, parse_mesh("data=4,model=4"),
                                     exp.dcn_mesh, exp.workload, 250.5));
  // While it waits, its slot stays taken: nothing else starts on the one pool.
  apply(1, step.row);
  EXPECT_EQ(next_tpu_step(search(4), ledger).what, tpu_session_step::action::wait);
}

TEST_F(tpu_step, a_transient_failure_runs_its_mesh_again_off_the_pool_it_failed_on) {
  open({"a", "b"});
  wire::trial_result r;
  r.status = trial_status::failed;
  r.error_kind = failure_kind::nccl_timeout;
  r.error_message = "DEADLINE_EXCEEDED: barrier timed out";
  r.exit_code = 1;
  ran(1, "data=4,model=4", "a", r);
  const auto recorded = next_tpu_step(search(4), ledger);
  ASSERT_EQ(recorded.what, tpu_session_step::action::store_row);
  EXPECT_TRUE(recorded.row.transient);
  EXPECT_FALSE(recorded.row.launch_failed);
  EXPECT_EQ(recorded.row.error, "DEADLINE_EXCEEDED: barrier timed out");
  EXPECT_EQ(recorded.row.next, ""); // the retry comes first
  apply(1, recorded.row);
  const auto retry = next_tpu_step(search(4), ledger);
  ASSERT_EQ(retry.what, tpu_session_step::action::propose);
  EXPECT_EQ(retry.trial, 2);
  EXPECT_EQ(retry.retry_of, 1);
  EXPECT_EQ(retry.pool, "b");
  EXPECT_EQ(retry.mesh.mesh, parse_mesh("data=4,model=4"));
}

TEST_F(tpu_step, three_runs_that_never_started_pause_the_pool_and_end_the_session) {
  open({"a"});
  for (int n = 1; n <= 3; ++n) {
    ran(n, n == 1 ? "data=4,model=4" : n == 2 ? "data=2,model=8" : "fsdp=4,model=4", "a",
        launch_failure());
    const auto step = next_tpu_step(search(8), ledger);
    ASSERT_EQ(step.what, tpu_session_step::action::store_row) << n;
    EXPECT_TRUE(step.row.launch_failed);
    EXPECT_FALSE(step.row.transient);
    apply(n, step.row);
  }
  const auto step = next_tpu_step(search(8), ledger);
  ASSERT_EQ(step.what, tpu_session_step::action::fail);
  EXPECT_EQ(step.text, "no pool is left to run trials on: pool 'a': 3 trials in a row never "
                       "started (last: exec /no/train failed: No such file or directory)");
}

TEST_F(tpu_step, the_session_finishes_once_its_budget_is_spent_and_nothing_runs) {
  open();
  ran(1, "data=4,model=4", "simulated", launch_failure());
  apply(1, next_tpu_step(search(1), ledger).row);
  const auto step = next_tpu_step(search(1), ledger);
  ASSERT_EQ(step.what, tpu_session_step::action::finish);
  EXPECT_EQ(step.end, session_state::finished);
}

TEST_F(tpu_step, a_diagnosed_row_keeps_the_proposals_and_names_the_next_mesh) {
  open();
  wire::trial_result r;
  r.status = trial_status::succeeded;
  r.iteration_ms = 250.5;
  r.iterations_scored = 2;
  ran(1, "data=4,model=4", "simulated", r);
  auto row = next_tpu_step(search(4), ledger).row;
  apply(1, row);
  wire::diagnosis d;
  d.bottleneck = "hbm_bandwidth";
  wire::proposal_set set;
  set.proposals.push_back({});
  set.proposals[0].title = "Trade data for model";
  set.proposals[0].mesh = "data=2,model=8";
  const auto done = tpu_diagnosed_row(search(4), ledger, row, d, set, 7000);
  EXPECT_FALSE(done.diagnosing);
  EXPECT_EQ(done.ended_ms, 7000);
  EXPECT_EQ(done.bottleneck, "hbm_bandwidth");
  ASSERT_EQ(done.proposed.size(), 1u);
  EXPECT_EQ(done.proposed[0].title, "Trade data for model");
  EXPECT_FALSE(done.next.empty());
  apply(1, done);
  const auto next = next_tpu_step(search(4), ledger);
  ASSERT_EQ(next.what, tpu_session_step::action::propose);
  EXPECT_EQ(next.trial, 2);
  EXPECT_EQ(next.mesh.title, done.next);
}

TEST(tpu_diagnosis, a_runs_diagnosis_session_names_its_trial) {
  EXPECT_EQ(tpu_trial_session("s1", 12), "s1.t12");
  EXPECT_EQ(tpu_trial_of_session("s1", "s1.t12"), 12);
  EXPECT_EQ(tpu_trial_of_session("s1", "s1.t"), 0);
  EXPECT_EQ(tpu_trial_of_session("s1", "s1.t3x"), 0);
  EXPECT_EQ(tpu_trial_of_session("s1", "s10.t3"), 0);
  EXPECT_EQ(tpu_trial_of_session("s1", "s1"), 0);
}

} // namespace
} // namespace paratune
