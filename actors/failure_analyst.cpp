#include "actors/failure_analyst.hpp"

#include <caf/all.hpp>

#include "core/tuning/failure_analysis.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

failure_analyst_state::failure_analyst_state(caf::event_based_actor* self) : agent_state(self) {
  on<wire::trial_result>([this](const wire::envelope& e, const wire::trial_result& r) {
    if (r.status == trial_status::failed)
      diagnose(e.session, r);
  });
}

void failure_analyst_state::diagnose(const std::string& session, const wire::trial_result& r) {
  auto v = analyze_failure(r.error_kind, r.error_message, wire::from_wire(r.config), r.exit_code);
  wire::failure_diagnosis d{r.trial, v.kind, v.blamed, v.confidence, v.retry, v.summary};
  store_and_publish(topics::failure(session, r.trial), wire::make_envelope(session, r.trial, d));
}

caf::behavior failure_analyst(caf::stateful_actor<failure_analyst_state>* self, agent_deps deps) {
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
