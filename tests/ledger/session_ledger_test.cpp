// The session ledger over histories built in memory: what each record does
// to it, replays and repeats, and the questions the agents ask of it.

#include <gtest/gtest.h>

#include "ledger/ledger_book.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "tests/fixtures/history_builder.hpp"

namespace paratune {
namespace {

using test::history_builder;

wire::config_map config_with_mbs(int mbs) {
  training_config c;
  c.mbs = mbs;
  return wire::to_wire(c);
}

wire::session_opened job_with_pools() {
  wire::session_opened j;
  j.trials = 6;
  wire::pool_wire a;
  a.name = "a100";
  a.capacity = 2;
  j.pools.push_back(a);
  return j;
}

wire::analysis_report report_for_request(int request) {
  wire::analysis_report r;
  r.request = request;
  return r;
}

wire::proposal proposal_for(int trial, int request, int mbs, const std::string& pool = "a100") {
  wire::proposal p;
  p.trial = trial;
  p.request = request;
  p.config = config_with_mbs(mbs);
  p.pool = pool;
  p.predicted_peak_mib = 1000.0 * mbs;
  return p;
}

wire::trial_result result_of(int trial, trial_status status, double tflops,
                             failure_kind kind = failure_kind::none,
                             const std::string& pool = "a100") {
  wire::trial_result r;
  r.trial = trial;
  r.status = status;
  r.tflops_per_gpu = tflops;
  r.iteration_ms = tflops > 0 ? 1e5 / tflops : 0;
  r.error_kind = kind;
  r.pool = pool;
  r.config = config_with_mbs(trial);
  if (kind == failure_kind::launcher_error)
    r.error_message = "sbatch: error: invalid partition";
  return r;
}

/// Two trials proposed on request 1; trial 1 ran at 150, trial 2 ran out of
/// memory and was diagnosed; request 2 was answered by trial 3, still running.
history_builder three_trials() {
  history_builder h;
  h.add(0, job_with_pools())
    .add(0, wire::analysis_request{0, 1, 2})
    .add(0, report_for_request(1))
    .add(1, proposal_for(1, 1, 1))
    .add(2, proposal_for(2, 1, 4))
    .add(1, wire::trial_started{1, config_with_mbs(1), {"sim"}, "a100"})
    .add(1, result_of(1, trial_status::succeeded, 150))
    .add(2, result_of(2, trial_status::failed, 0, failure_kind::oom))
    .add(2, wire::failure_diagnosis{2, failure_kind::oom, {"micro_batch_size"}, 92, false,
                                    "MBS 4 caused CUDA OutOfMemoryError"})
    .add(0, wire::analysis_request{2, 2, 1})
    .add(3, proposal_for(3, 2, 2));
  return h;
}

TEST(SessionLedger, FoldsTrialsRequestsAndTheIncumbent) {
  const auto h = three_trials();
  session_ledger l;
  l.apply(h.records);
  EXPECT_EQ(l.session(), "s1");
  EXPECT_EQ(l.last_seq(), 11u);
  ASSERT_NE(l.job(), nullptr);
  EXPECT_EQ(l.job()->trials, 6);
  EXPECT_EQ(l.latest_request(), 2);
  EXPECT_EQ(l.next_trial(), 4);
  EXPECT_EQ(l.trials_used(), 3);
  EXPECT_EQ(l.results(), 2);
  const auto flying = l.in_flight();
  ASSERT_EQ(flying.size(), 1u);
  EXPECT_EQ(flying[0]->number, 3);
  EXPECT_EQ(l.incumbent().trial, 1);
  EXPECT_DOUBLE_EQ(l.incumbent().tflops_per_gpu, 150);
  EXPECT_EQ(l.pools().at("a100").last_trial, 2);
  EXPECT_EQ(l.pools().at("a100").last_end, failure_kind::oom);
  EXPECT_FALSE(l.ended());
  EXPECT_TRUE(l.unreadable().empty());
}

TEST(SessionLedger, OutcomesCarryTheDiagnosisAndPendingTheTrialsInFlight) {
  session_ledger l;
  l.apply(three_trials().records);
  const auto outcomes = l.outcomes();
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].trial, 1);
  EXPECT_EQ(outcomes[0].status, trial_status::succeeded);
  EXPECT_EQ(outcomes[0].failure, failure_kind::none);
  EXPECT_EQ(outcomes[1].trial, 2);
  EXPECT_EQ(outcomes[1].failure, failure_kind::oom);
  EXPECT_EQ(outcomes[1].confidence, 92);
  ASSERT_EQ(outcomes[1].blamed.size(), 1u);
  EXPECT_EQ(outcomes[1].blamed[0], "micro_batch_size");
  EXPECT_EQ(outcomes[1].reason, "MBS 4 caused CUDA OutOfMemoryError");
  const auto pending = l.pending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].trial, 3);
  EXPECT_EQ(pending[0].config.mbs, 2);
}

TEST(SessionLedger, ReplayingFromAnySequenceNumberChangesNothing) {
  const auto h = three_trials();
  session_ledger once;
  once.apply(h.records);
  // Applied in two reads that overlap (the second from seq 5), and the
  // whole history once more on top.
  session_ledger twice;
  twice.apply(std::vector<wire::envelope>(h.records.begin(), h.records.begin() + 7));
  twice.apply(std::vector<wire::envelope>(h.records.begin() + 4, h.records.end()));
  twice.apply(h.records);
  EXPECT_EQ(twice.last_seq(), once.last_seq());
  EXPECT_EQ(twice.applied(), once.applied());
  EXPECT_EQ(twice.applied(), 11u);
  EXPECT_EQ(twice.trials_used(), once.trials_used());
  EXPECT_EQ(twice.results(), 2);
  EXPECT_EQ(twice.outcomes().size(), 2u);
}

TEST(SessionLedger, AnswersByRequestAndTheStoredProposalUntilTheEnd) {
  auto h = three_trials();
  session_ledger l;
  l.apply(h.records);
  ASSERT_NE(l.report_for(1), nullptr);
  EXPECT_EQ(l.report_for(1)->seq, 3u);
  EXPECT_EQ(l.report_for(2), nullptr);
  const auto answers = l.proposals_for(1);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].trial, 1);
  EXPECT_EQ(answers[1].trial, 2);
  // The validator runs what the pool holds at the number the bus named.
  ASSERT_TRUE(l.proposal_at(11));
  EXPECT_EQ(l.proposal_at(11)->trial, 3);
  EXPECT_FALSE(l.proposal_at(10)); // a request, not a proposal
  EXPECT_FALSE(l.proposal_at(99));
  wire::session_status end;
  end.state = session_state::cancelled;
  h.add(0, end);
  l.apply(h.records.back());
  EXPECT_TRUE(l.ended());
  EXPECT_EQ(l.end()->state, session_state::cancelled);
  EXPECT_FALSE(l.proposal_at(11)); // nothing new runs once it has ended
}

TEST(SessionLedger, ASkippedTrialSpendsNoBudget) {
  history_builder h;
  h.add(0, job_with_pools()).add(1, proposal_for(1, 1, 1));
  session_ledger l;
  l.apply(h.records);
  EXPECT_EQ(l.trials_used(), 1);
  h.add(1, result_of(1, trial_status::skipped, 0));
  l.apply(h.records.back());
  EXPECT_EQ(l.trials_used(), 0);
  EXPECT_EQ(l.results(), 1);
  EXPECT_EQ(l.next_trial(), 2);
}

TEST(SessionLedger, CountsAPoolsLaunchFailuresInARowAndResetsOnAStart) {
  history_builder h;
  h.add(0, job_with_pools());
  for (int t = 1; t <= 3; ++t)
    h.add(t, result_of(t, trial_status::failed, 0, failure_kind::launcher_error));
  session_ledger l;
  l.apply(h.records);
  EXPECT_EQ(l.pools().at("a100").launch_failures, 3);
  EXPECT_EQ(l.pools().at("a100").last_launch_error, "sbatch: error: invalid partition");
  EXPECT_EQ(l.pools().at("a100").last_end, failure_kind::launcher_error);
  h.add(4, result_of(4, trial_status::succeeded, 120));
  l.apply(h.records.back());
  EXPECT_EQ(l.pools().at("a100").launch_failures, 0);
  EXPECT_EQ(l.pools().at("a100").last_end, failure_kind::none);
}

TEST(SessionLedger, AnInterruptedRunIsNoLongerStarted) {
  history_builder h;
  h.add(0, job_with_pools()).add(1, proposal_for(1, 1, 1));
  h.add(1, wire::trial_started{1, config_with_mbs(1), {"sim"}, "a100"});
  wire::trial_job j;
  j.trial = 1;
  j.slurm_job_id = 77;
  h.add(1, j);
  session_ledger l;
  l.apply(h.records);
  ASSERT_TRUE(l.trial(1)->started);
  EXPECT_EQ(l.trial(1)->job->slurm_job_id, 77);
  h.add(1, wire::trial_interrupted{1, "its run was lost"});
  l.apply(h.records.back());
  EXPECT_FALSE(l.trial(1)->started);
  EXPECT_FALSE(l.trial(1)->job);
  EXPECT_TRUE(l.trial(1)->in_flight());
}

wire::tpu_trial_row tpu_row(int trial, const std::string& mesh, double step_ms, int64_t ended_ms,
                            const std::string& error = "") {
  wire::tpu_trial_row r;
  r.trial = trial;
  r.mesh = mesh;
  r.step_time_ms = step_ms;
  r.error = error;
  r.started_ms = 1000 * trial;
  r.ended_ms = ended_ms;
  return r;
}

TEST(SessionLedger, ATpuSessionsProgressIsItsRunsSoFarThenItsEnd) {
  wire::tpu_session_opened job;
  job.experiment_name = "v6e-16";
  job.budget = 4;
  history_builder h;
  h.add(0, job)
    .add(0, tpu_row(1, "data=4,model=4", 0, 0))
    .add(0, tpu_row(1, "data=4,model=4", 812.5, 5000))
    .add(0, tpu_row(2, "data=16", 0, 6000, "out of memory"))
    .add(0, tpu_row(3, "fsdp=16", 640.0, 9000))
    .add(0, tpu_row(4, "fsdp=8,model=2", 0, 0));
  session_ledger l;
  l.apply(h.records);
  auto p = l.tpu_progress();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->state, session_state::running);
  ASSERT_EQ(p->trials.size(), 4u);
  EXPECT_EQ(p->trials[0].step_time_ms, 812.5); // the run's last row stands
  EXPECT_EQ(p->trials[3].ended_ms, 0);         // still running
  EXPECT_EQ(p->best_trial, 3);
  EXPECT_TRUE(p->text.empty());

  // The end record stands for the rows, with its own best and words.
  wire::tpu_session_end end;
  end.state = session_state::cancelled;
  end.trials = p->trials;
  end.trials[3] = tpu_row(4, "fsdp=8,model=2", 700.0, 9500);
  end.trials[3].stopped = "cancelled by a client";
  end.best_trial = 3;
  end.text = "cancelled by a client";
  h.add(0, end);
  l.apply(h.records.back());
  p = l.tpu_progress();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->state, session_state::cancelled);
  EXPECT_EQ(p->trials[3].step_time_ms, 700.0);
  EXPECT_EQ(p->trials[3].stopped, "cancelled by a client");
  EXPECT_EQ(p->best_trial, 3);
  EXPECT_EQ(p->text, "cancelled by a client");

  // A GPU session has none.
  session_ledger gpu;
  gpu.apply(three_trials().records);
  EXPECT_FALSE(gpu.tpu_progress());
}

TEST(SessionLedger, ARecordThatDoesNotDecodeIsNamedAndSkipped) {
  auto h = three_trials();
  h.records[6].body = "\xc1"; // the trial 1 result: a msgpack byte that is never valid
  session_ledger l;
  l.apply(h.records);
  EXPECT_NE(l.unreadable().find("record 7 (trial_result)"), std::string::npos) << l.unreadable();
  EXPECT_EQ(l.results(), 1);
  EXPECT_EQ(l.last_seq(), 11u);
}

TEST(SessionLedger, FollowsPublishedRecordsInChainOnlyAfterAPoolRead) {
  const auto h = three_trials();
  const auto& r = h.records; // seqs 1..11, each naming the one before
  session_ledger l("s1");
  // Never from nothing: the job comes from a pool read, not from the bus.
  EXPECT_FALSE(l.follow(r[0]));
  EXPECT_EQ(l.job(), nullptr);
  EXPECT_FALSE(l.holds(1));
  l.apply_read(std::vector<wire::envelope>(r.begin(), r.begin() + 5)); // seqs 1..5
  EXPECT_TRUE(l.holds(5));
  EXPECT_FALSE(l.holds(6));
  EXPECT_TRUE(l.follow(r[5])); // seq 6 after 5
  EXPECT_TRUE(l.holds(6));
  EXPECT_EQ(l.trial(1)->started.has_value(), true);
  // Seq 7 lost on the bus: 8 and 9 do not chain, and are not applied, and
  // the ledger is no longer current even for what it holds.
  EXPECT_FALSE(l.follow(r[7]));
  EXPECT_FALSE(l.follow(r[8]));
  EXPECT_EQ(l.last_seq(), 6u);
  EXPECT_EQ(l.results(), 0);
  EXPECT_FALSE(l.holds(9));
  EXPECT_FALSE(l.holds(6));
  // A copy of what a read already brought is held.
  const auto applied = l.applied();
  EXPECT_TRUE(l.follow(r[3]));
  EXPECT_EQ(l.applied(), applied);
  // The read after the gap, then the chain again.
  l.apply_read(std::vector<wire::envelope>(r.begin() + 6, r.end()));
  EXPECT_EQ(l.last_seq(), 11u);
  EXPECT_EQ(l.results(), 2);
  EXPECT_TRUE(l.holds(11));
  history_builder more = h;
  more.add(3, wire::trial_started{3, config_with_mbs(2), {"sim"}, "a100"});
  EXPECT_TRUE(l.follow(more.records.back()));
  EXPECT_EQ(l.last_seq(), 12u);
  EXPECT_TRUE(l.trial(3)->started.has_value());
  // Another session's record, or one never stored, is not followed.
  auto other = more.records.back();
  other.session = "s2";
  other.seq = 13;
  other.prev_seq = 12;
  EXPECT_FALSE(l.follow(other));
  auto unstored = more.records.back();
  unstored.seq = 0;
  EXPECT_FALSE(l.follow(unstored));
  EXPECT_EQ(l.last_seq(), 12u);
}

TEST(SessionLedger, ALedgerNothingFeedsIsNeverCurrent) {
  // Read from the pool but never handed a record from the bus (an agent not
  // subscribed to the feed): its reader must read again, whatever it holds.
  session_ledger l("s1");
  l.apply_read(three_trials().records);
  EXPECT_EQ(l.last_seq(), 11u);
  EXPECT_FALSE(l.holds(3));
}

TEST(SessionLedger, AFollowedLedgerEqualsTheOneReadWhole) {
  const auto h = three_trials();
  session_ledger read("s1"), followed("s1");
  read.apply(h.records);
  followed.apply(h.records.front());
  for (size_t i = 1; i < h.records.size(); ++i)
    ASSERT_TRUE(followed.follow(h.records[i])) << i;
  EXPECT_EQ(followed.last_seq(), read.last_seq());
  EXPECT_EQ(followed.applied(), read.applied());
  EXPECT_EQ(followed.trials_used(), read.trials_used());
  EXPECT_EQ(followed.latest_request(), read.latest_request());
  EXPECT_EQ(followed.outcomes().size(), read.outcomes().size());
  EXPECT_EQ(followed.incumbent().trial, read.incumbent().trial);
}

TEST(SessionLedger, RecordsOfAnotherSessionAreNotApplied) {
  auto h = three_trials();
  session_ledger l("other");
  l.apply(h.records);
  EXPECT_EQ(l.applied(), 0u);
  EXPECT_EQ(l.job(), nullptr);
}

TEST(LedgerBook, KeepsOneLedgerPerSessionAndDropsTheLeastRecentlyUsed) {
  ledger_book book(2);
  EXPECT_EQ(book.of("a")->session(), "a");
  auto a = book.of("a");
  a->apply(three_trials().records); // session "s1" records do not apply to "a"
  EXPECT_EQ(book.of("a"), a);
  book.of("b");
  book.of("a"); // "b" is now the least recently used
  book.of("c");
  EXPECT_EQ(book.size(), 2u);
  EXPECT_EQ(book.of("a"), a);
  book.forget("a");
  EXPECT_NE(book.of("a"), a);
}

} // namespace
} // namespace paratune
