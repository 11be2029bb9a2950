#pragma once

#include <map>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agent_interfaces.hpp"

namespace paratune {

/// Monitors every actor the runtime starts. An agent (or the pool, or the
/// egress) that ends for any reason but a shutdown is logged with its
/// reason, counted, and every watched session is told (agent_down_atom,
/// name, reason), so that it ends with that reason instead of waiting for
/// an answer that will never come.
struct watchdog_state {
  std::map<caf::actor_addr, std::string> agents;   ///< monitored, by address
  std::vector<caf::actor_addr> sessions;           ///< told of agent deaths
  int deaths = 0;
  static inline const char* name = "watchdog";
};

/// (watch_atom, actor, name) monitors an agent; (watch_atom, actor) a session.
watchdog_actor::behavior_type watchdog(watchdog_actor::stateful_pointer<watchdog_state> self);

} // namespace paratune
