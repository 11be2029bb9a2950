#include "actors/failure_analyst.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "core/tuning/failure_analysis.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

caf::behavior failure_analyst(caf::stateful_actor<failure_analyst_state>* self, agent_deps deps) {
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      auto e = decode_bus(self->name(), topic, payload);
      if (!e || e->type != wire::type_name<wire::trial_result>())
        return;
      try {
        auto r = wire::body_of<wire::trial_result>(*e);
        if (r.status != "failed")
          return;
        auto v = analyze_failure(r.error_kind, r.error_message, wire::from_wire(r.config),
                                 r.exit_code);
        wire::failure_diagnosis d{r.trial, to_string(v.kind), v.blamed, v.confidence, v.retry,
                                  v.summary};
        store_and_publish(self, deps, topics::failure(e->session, r.trial),
                          wire::make_envelope(e->session, r.trial, d));
      } catch (const std::exception& err) {
        spdlog::warn("failure_analyst: {}", err.what());
      }
    },
  };
}

} // namespace paratune
