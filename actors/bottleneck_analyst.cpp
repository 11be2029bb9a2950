#include "actors/bottleneck_analyst.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/model_turn.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

analyst_state::analyst_state(caf::event_based_actor* self) : agent_state(self) {
  on<wire::analysis_request>([this](const wire::envelope& e, const wire::analysis_request& r) {
    const auto session = e.session;
    with_history(session, [this, session, r](std::vector<wire::envelope> history) {
      analyse(session, r, history);
    });
  });
}

void analyst_state::analyse(const std::string& session, const wire::analysis_request& request,
                            const std::vector<wire::envelope>& history) {
  const int after_trial = request.after_trial;
  const auto* opened = find_first<wire::session_opened>(history);
  if (!opened) {
    spdlog::warn("bottleneck_analyst: session {} has no session_opened record", session);
    return;
  }
  wire::analysis_report report;
  try {
    const auto session_record = wire::body_of<wire::session_opened>(*opened);
    auto ctx = wire::context_of(session_record);
    const auto outcomes = wire::outcomes_of(history);
    const auto pending = wire::pending_of(history);
    auto a = analyze(ctx, outcomes, pending);
    for (auto& x : model_turn(session_record, ctx, outcomes, pending, a, after_trial,
                              request.request))
      store(wire::make_envelope(session, after_trial, x));
    report = wire::to_wire(a, after_trial);
  } catch (const std::exception& e) {
    // A history that does not read: the session learns why and ends,
    // instead of asking again for an analysis that cannot succeed.
    spdlog::error("bottleneck_analyst: session {}: {}", session, e.what());
    report.after_trial = after_trial;
    report.error = e.what();
  }
  report.request = request.request;
  report.slots = request.slots;
  store_and_publish(topics::report(session), wire::make_envelope(session, after_trial, report));
}

caf::behavior bottleneck_analyst(caf::stateful_actor<analyst_state>* self, agent_deps deps) {
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
