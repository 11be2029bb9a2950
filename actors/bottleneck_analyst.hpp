#pragma once

#include <caf/fwd.hpp>

#include "actors/agent.hpp"

namespace paratune {

/// The Bottleneck Analysis agent. Subscribes to "analysis." (requests); for
/// each request reads the session's history from the pool, runs the
/// built-in reasoner (health state, candidates, guards) and publishes an
/// analysis_report on "report.<session>".
struct analyst_state : agent_state {
  explicit analyst_state(caf::event_based_actor* self);

  /// Analyses `session` from its stored history for `request`: its
  /// results, and the trials still running, which no candidate repeats.
  void analyse(const std::string& session, const wire::analysis_request& request,
               const std::vector<wire::envelope>& history);

  static inline const char* name = "bottleneck_analyst";
};

caf::behavior bottleneck_analyst(caf::stateful_actor<analyst_state>* self, agent_deps deps);

} // namespace paratune
