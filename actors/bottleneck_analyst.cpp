#include "actors/bottleneck_analyst.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "core/input_error.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

namespace {

void analyse(caf::event_based_actor* self, const agent_deps& deps, const std::string& session,
             int after_trial, const std::vector<wire::envelope>& history) {
  const auto* opened = find_first(history, wire::type_name<wire::session_opened>());
  if (!opened) {
    spdlog::warn("bottleneck_analyst: session {} has no session_opened record", session);
    return;
  }
  try {
    auto ctx = wire::context_of(wire::body_of<wire::session_opened>(*opened));
    auto outcomes = wire::outcomes_of(history);
    auto a = analyze(ctx, outcomes);
    auto report = wire::to_wire(a, after_trial);
    store_and_publish(self, deps, topics::report(session),
                      wire::make_envelope(session, after_trial, report));
  } catch (const std::exception& e) {
    spdlog::error("bottleneck_analyst: session {}: {}", session, e.what());
  }
}

} // namespace

caf::behavior bottleneck_analyst(caf::stateful_actor<analyst_state>* self, agent_deps deps) {
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      auto e = decode_bus(self->name(), topic, payload);
      if (!e || e->type != wire::type_name<wire::analysis_request>())
        return;
      int after = 0;
      try {
        after = wire::body_of<wire::analysis_request>(*e).after_trial;
      } catch (const wire::decode_error& err) {
        spdlog::warn("bottleneck_analyst: {}", err.what());
        return;
      }
      const auto session = e->session;
      with_history(self, deps, session, [=](std::vector<wire::envelope> history) {
        analyse(self, deps, session, after, history);
      });
    },
  };
}

} // namespace paratune
