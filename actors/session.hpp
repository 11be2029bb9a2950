#pragma once

#include <set>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agent_io.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

class bus_bridge;

struct session_state {
  std::string id;
  wire::session_opened job;
  caf::actor listener;          ///< told (done_atom, session, state) at the end
  std::set<int> results;        ///< trials whose result was handled
  std::set<int> launched;       ///< trials that ran (skipped ones excluded)
  int awaiting_diagnosis = 0;   ///< failed trial whose diagnosis comes next
  int requested_after = -1;     ///< the last analysis request sent
  int64_t last_progress_ms = 0; ///< steady-clock time of the last event
  bool done = false;
  static inline const char* name = "session";
};

/// The coordinator of one tuning session: records the job, asks for an
/// analysis after every trial until the budget is spent or nothing new and
/// valid remains, then records the session's end and tells `listener`.
/// Holds no global state, so one process can host many sessions. Treats the
/// bus as lossy: a periodic tick replays what the pool has that the bus did
/// not deliver, and re-asks when a step has gone quiet.
caf::behavior session(caf::stateful_actor<session_state>* self, agent_deps deps,
                      bus_bridge* bridge, std::string id, wire::session_opened job,
                      caf::actor listener, bool resume);

} // namespace paratune
