#pragma once

#include <caf/fwd.hpp>

#include "actors/agent_io.hpp"

namespace paratune {

struct analyst_state {
  static inline const char* name = "bottleneck_analyst";
};

/// The Bottleneck Analysis agent. Subscribes to "analysis." (requests); for
/// each request reads the session's history from the pool, runs the
/// built-in reasoner (health state, candidates, guards) and publishes an
/// analysis_report on "report.<session>".
caf::behavior bottleneck_analyst(caf::stateful_actor<analyst_state>* self, agent_deps deps);

} // namespace paratune
