// What a GPU session's coordinator does next, from its ledger alone:
// next_session_step over ledgers built in memory.

#include <gtest/gtest.h>

#include "decisions/session_step.hpp"
#include "tests/decisions/decision_fixtures.hpp"

namespace paratune {
namespace {

using namespace test;
using action = session_step::action;

wire::analysis_request request(int number, int slots, int after) {
  return {after, number, slots};
}

wire::proposal answer(int trial, int request, int mbs = 2) {
  auto p = proposal_on(trial, mbs, "a");
  p.request = request;
  return p;
}

wire::trial_result measured(int trial, double tflops) {
  wire::trial_result r;
  r.trial = trial;
  r.status = trial_status::succeeded;
  r.tflops_per_gpu = tflops;
  r.pool = "a";
  return r;
}

TEST(session_step, a_new_session_asks_for_every_slot_the_budget_allows) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 2), pool_named("b", 1)}, 2));
  const auto s = next_session_step(ledger_of(h), {3, 2, 0});
  EXPECT_EQ(s.what, action::ask);
  EXPECT_EQ(s.request, 1);
  EXPECT_EQ(s.slots, 2);  // three slots, a budget of two
}

TEST(session_step, a_request_sent_or_stored_without_its_answer_is_awaited) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 2)}));
  EXPECT_EQ(next_session_step(ledger_of(h), {2, 10, 1}).what, action::wait);  // sent only
  h.add(0, request(1, 2, 0));
  EXPECT_EQ(next_session_step(ledger_of(h), {2, 10, 1}).what, action::wait);
  h.add(1, answer(1, 1));
  // Answered with one trial: one slot is free, and nothing new came yet.
  const auto l = ledger_of(h);
  EXPECT_TRUE(l.latest_answered());
  EXPECT_EQ(next_session_step(l, {2, 10, 1}).what, action::wait);
  h.add(1, measured(1, 200));
  const auto after_result = next_session_step(ledger_of(h), {2, 10, 1});
  EXPECT_EQ(after_result.what, action::ask);
  EXPECT_EQ(after_result.request, 2);
  EXPECT_EQ(after_result.slots, 2);
}

TEST(session_step, a_result_no_proposal_asked_for_answers_the_request) {
  // The generator refused the initial configuration before launch.
  history_builder h;
  h.add(0, job_on({pool_named("a", 1)})).add(0, request(1, 1, 0));
  auto skipped = measured(1, 0);
  skipped.status = trial_status::skipped;
  h.add(1, skipped);
  const auto l = ledger_of(h);
  EXPECT_TRUE(l.latest_answered());
  EXPECT_EQ(l.trials_used(), 0);
  const auto s = next_session_step(l, {1, 10, 1});
  EXPECT_EQ(s.what, action::ask);
  EXPECT_EQ(s.request, 2);
}

TEST(session_step, a_failure_waits_for_its_diagnosis) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 1)}))
    .add(0, request(1, 1, 0))
    .add(1, answer(1, 1))
    .add(1, failed_on(1, 2, "a", failure_kind::oom));
  EXPECT_EQ(next_session_step(ledger_of(h), {1, 10, 1}).what, action::wait);
  h.add(1, worth_a_retry(1, failure_kind::oom));
  EXPECT_EQ(next_session_step(ledger_of(h), {1, 10, 1}).what, action::ask);
}

TEST(session_step, the_session_ends_when_the_budget_is_spent_and_nothing_runs) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 2)}, 2))
    .add(0, request(1, 2, 0))
    .add(1, answer(1, 1))
    .add(2, answer(2, 1, 3))
    .add(1, measured(1, 200));
  EXPECT_EQ(next_session_step(ledger_of(h), {2, 2, 1}).what, action::wait);  // trial 2 runs
  h.add(2, measured(2, 210));
  const auto s = next_session_step(ledger_of(h), {2, 2, 1});
  EXPECT_EQ(s.what, action::finish);
  EXPECT_EQ(s.end, session_state::finished);
}

TEST(session_step, an_exhausted_answer_ends_the_session_exhausted) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 1)}))
    .add(0, request(1, 1, 0))
    .add(1, answer(1, 1))
    .add(1, measured(1, 200))
    .add(0, request(2, 1, 1));
  wire::proposal nothing;
  nothing.request = 2;
  nothing.exhausted = true;
  h.add(0, nothing);
  const auto s = next_session_step(ledger_of(h), {1, 10, 2});
  EXPECT_EQ(s.what, action::finish);
  EXPECT_EQ(s.end, session_state::exhausted);
}

TEST(session_step, converged_and_no_pool_answers_end_once_nothing_runs) {
  history_builder h;
  h.add(0, job_on({pool_named("a", 2)}))
    .add(0, request(1, 2, 0))
    .add(1, answer(1, 1))
    .add(1, measured(1, 200))
    .add(0, request(2, 2, 1))
    .add(2, answer(2, 2));
  auto converged = h;
  wire::proposal stop;
  stop.request = 2;
  stop.converged = true;
  stop.stop_reason = "no candidate has a 10% chance of a 1% gain";
  converged.add(0, stop);
  EXPECT_EQ(next_session_step(ledger_of(converged), {2, 10, 2}).what, action::wait);
  converged.add(2, measured(2, 190));
  auto s = next_session_step(ledger_of(converged), {2, 10, 2});
  EXPECT_EQ(s.what, action::finish);
  EXPECT_EQ(s.end, session_state::converged);
  EXPECT_EQ(s.text, stop.stop_reason);

  auto paused = h;
  wire::proposal none;
  none.request = 2;
  none.exhausted = true;
  none.no_pool = "no pool is left to run trials on: pool 'a': 3 trials in a row never started";
  paused.add(0, none).add(2, measured(2, 190));
  s = next_session_step(ledger_of(paused), {2, 10, 2});
  EXPECT_EQ(s.what, action::fail);
  EXPECT_EQ(s.text, none.no_pool);
}

} // namespace
} // namespace paratune
