#include "decisions/session_step.hpp"

#include <algorithm>

namespace paratune {

namespace {

session_step end_when_idle(int in_flight, session_step::action what, session_state end,
                           std::string text = {}) {
  if (in_flight > 0)
    return {};
  session_step s;
  s.what = what;
  s.end = end;
  s.text = std::move(text);
  return s;
}

bool awaits_diagnosis(const session_ledger& ledger) {
  for (const auto& [number, t] : ledger.trials())
    if (t.awaiting_diagnosis())
      return true;
  return false;
}

} // namespace

session_step next_session_step(const session_ledger& ledger, const session_step_inputs& in) {
  const int latest = std::max(ledger.latest_request(), in.asked);
  const bool answered = in.asked <= ledger.latest_request() && ledger.latest_answered();
  if (!answered || awaits_diagnosis(ledger))
    return {};
  const int in_flight = int(ledger.in_flight().size());
  if (!ledger.converged().empty())
    return end_when_idle(in_flight, session_step::action::finish, session_state::converged,
                         ledger.converged());
  if (!ledger.no_pool().empty())
    return end_when_idle(in_flight, session_step::action::fail, session_state::failed,
                         ledger.no_pool());
  const int budget_left = in.budget - ledger.trials_used();
  const int results = ledger.results();
  const int seen = ledger.last_request() ? ledger.last_request()->after_trial : -1;
  if (budget_left <= 0 || (results <= seen && latest > 0))
    return end_when_idle(in_flight, session_step::action::finish,
                         budget_left <= 0 || ledger.exhausted_after() < results
                           ? session_state::finished
                           : session_state::exhausted);
  const int free = in.capacity - in_flight;
  if (free <= 0)
    return {};
  session_step s;
  s.what = session_step::action::ask;
  s.request = latest + 1;
  s.slots = std::min(free, budget_left);
  return s;
}

} // namespace paratune
