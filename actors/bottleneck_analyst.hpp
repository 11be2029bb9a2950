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

  /// Analyses `session` after `after_trial` trials, from its stored history.
  void analyse(const std::string& session, int after_trial,
               const std::vector<wire::envelope>& history);

  static inline const char* name = "bottleneck_analyst";
};

caf::behavior bottleneck_analyst(caf::stateful_actor<analyst_state>* self, agent_deps deps);

} // namespace paratune
