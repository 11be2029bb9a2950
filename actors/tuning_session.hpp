#pragma once

#include <chrono>
#include <set>
#include <string>

#include <caf/actor.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "actors/agent.hpp"
#include "core/session_state.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

class bus_bridge;

struct tuning_session_options {
  bool resume = false; ///< the pool holds the session already: continue it
  /// How often the pool is replayed and a quiet step checked. Replays also
  /// follow every bus gap at once; the tick catches a loss with no
  /// successor to reveal it (the last message of a step).
  std::chrono::milliseconds tick{500};
};

/// Where the coordinator stands between two trials.
enum class session_phase {
  opening,            ///< storing the session_opened record
  analysing,          ///< an analysis was asked for; no proposal for the next trial yet
  running_trial,      ///< the next trial's proposal is out; its result is awaited
  awaiting_diagnosis, ///< the last trial failed; its failure diagnosis is awaited
  ending,             ///< storing the session_status record
};

/// The coordinator of one GPU tuning session (OptiCo's loop): records the
/// job, asks for an analysis after every trial until the budget is spent or
/// nothing new and valid remains, then records the session's end and tells
/// `listener` (done_atom, id, session_state, text).
///
/// It treats the bus as lossy: a sequence gap on the bus (replay_atom) or a
/// periodic tick replays what the pool holds, and a step that has gone
/// quiet is asked for again. It fails, with the reason stored and told,
/// when its history cannot be read, an analysis of it failed, or an agent
/// it needs died.
struct tuning_session_state : agent_state {
  explicit tuning_session_state(caf::event_based_actor* self);

  void open(std::string id, wire::session_opened job, caf::actor listener,
            tuning_session_options opts);
  /// Only this session's records, and none once it is ending. Each record,
  /// from the bus or replayed from the pool, changes the state once.
  bool wants(const wire::envelope& e) const override;
  /// Replays the pool and re-asks a quiet step.
  void replay();
  void request_analysis(int after);
  void next_step();
  void finish(session_state end);
  void fail(const std::string& reason);

  std::string id;
  wire::session_opened job;
  caf::actor listener;
  session_phase phase = session_phase::opening;
  std::set<int> results;        ///< trials whose result was handled
  std::set<int> launched;       ///< trials that ran (skipped ones excluded)
  int awaiting_trial = 0;       ///< the failed trial whose diagnosis comes next
  int requested_after = -1;     ///< the last analysis request sent
  int64_t last_progress_ms = 0; ///< steady-clock time of the last event
  std::chrono::milliseconds tick{500};
  static inline const char* name = "tuning_session";
};

caf::behavior tuning_session(caf::stateful_actor<tuning_session_state>* self, agent_deps deps,
                             bus_bridge* bridge, std::string id, wire::session_opened job,
                             caf::actor listener, tuning_session_options opts);

/// How a session ended, as its listener was told.
struct session_end {
  session_state state = session_state::failed;
  std::string text;
};

/// Waits for `session` to end: its done message, or its death (a down
/// message with the reason, as an error). `timeout` 0 waits without limit.
caf::expected<session_end> await_session(caf::scoped_actor& self, const caf::actor& session,
                                         std::chrono::seconds timeout = std::chrono::seconds(0));

} // namespace paratune
