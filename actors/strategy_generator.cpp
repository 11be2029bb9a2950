#include "actors/strategy_generator.hpp"

#include <utility>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "core/input_error.hpp"
#include "decisions/proposal_forms.hpp"
#include "decisions/trial_choice.hpp"
#include "decisions/trial_command.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

generator_state::generator_state(strategy_generator_actor::pointer self)
  : basic_agent_state(self) {
  on<wire::analysis_report>([this](const wire::envelope& e, wire::analysis_report report) {
    const auto session = e.session;
    with_current_ledger(session, e.seq, [this, session, report](const session_ledger& ledger) {
      generate(session, report, ledger);
    });
  });
}

void generator_state::generate(const std::string& session, const wire::analysis_report& report,
                               const session_ledger& ledger) {
  const auto* job = ledger.job();
  if (!job || !report.error.empty())
    return; // an analysis that failed ends the session (tuning_session)
  if (report.request != ledger.latest_request())
    return; // a stale report: the session has asked again since
  if (republish_answer(session, report.request, ledger))
    return;
  if (ledger.next_trial() == 1)
    if (auto skipped = skipped_initial(report))
      return store_and_publish(topics::trial_state(session, 1),
                               wire::make_envelope(session, 1, *skipped));
  // A converged analysis launches nothing: its answer is the session's end.
  auto proposals =
    report.converged ? std::vector<wire::proposal>{} : choose_trials(report, *job, ledger);
  const auto loads = pool_loads(*job, ledger);
  const auto paused = paused_pools_text(loads, ledger);
  // Kept only while a pool is paused, so the map does not grow with every
  // session a daemon ever ran.
  if (paused.empty()) {
    if (logged_pauses.erase(session))
      spdlog::info("session {}: no pool is paused any more", session);
  } else if (logged_pauses[session] != paused) {
    logged_pauses[session] = paused;
    spdlog::warn("session {}: paused {}", session, paused);
  }
  if (proposals.empty()) {
    proposals.push_back(nothing_to_run(report));
    if (all_paused(loads))
      proposals.back().no_pool = "no pool is left to run trials on: " + paused;
  }
  for (auto& p : proposals)
    publish_proposal(session, *job, p);
}

bool generator_state::republish_answer(const std::string& session, int request,
                                       const session_ledger& ledger) {
  const auto answers = ledger.proposals_for(request);
  for (const auto& e : answers)
    publish_only(topics::proposal(session), e);
  return !answers.empty();
}

void generator_state::publish_proposal(const std::string& session, const wire::session_opened& job,
                                       wire::proposal& p) {
  if (p.trial > 0) {
    try {
      give_trial_command(p, job, session);
    } catch (const input_error& e) {
      // A stored launch template that does not render (the job loader
      // checks it; a record from elsewhere may not): the trial fails, not
      // the agent.
      wire::trial_result failed;
      failed.trial = p.trial;
      failed.config = p.config;
      failed.pool = p.pool;
      failed.status = trial_status::failed;
      failed.error_kind = failure_kind::launcher_error;
      failed.error_message = failed.reason = std::string("launch command: ") + e.what();
      return store_and_publish(topics::trial_state(session, p.trial),
                               wire::make_envelope(session, p.trial, failed));
    }
  }
  store_and_publish(topics::proposal(session), wire::make_envelope(session, p.trial, p));
}

strategy_generator_actor::behavior_type
strategy_generator(strategy_generator_actor::stateful_pointer<generator_state> self,
                   agent_deps deps) {
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
