#pragma once

#include <chrono>
#include <map>
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

/// Where the coordinator stands.
enum class session_phase {
  opening,  ///< storing the session_opened record
  running,  ///< asking for trials and collecting their results
  ending,   ///< storing the session_status record
};

/// The coordinator of one GPU tuning session (OptiCo's loop, with several
/// trials in flight): records the job, keeps every pool's slots filled by
/// asking for as many trials as are free, and after every result asks
/// again, so that the queued choices are ranked anew on what was just
/// measured. After a failure it waits for the failure's diagnosis first
/// (its constraint shapes the next choices). It ends when the trial budget
/// is spent, or nothing new and valid remains, and no trial is in flight;
/// then it records the session's end and tells `listener` (done_atom, id,
/// session_state, text).
///
/// It treats the bus as lossy: a sequence gap on the bus (replay_atom) or a
/// periodic tick replays what the pool holds, and a request that has gone
/// unanswered is asked again under its own number. It fails, with the
/// reason stored and told, when its history cannot be read, an analysis of
/// it failed, or an agent it needs died.
struct tuning_session_state : basic_agent_state<tuning_session_actor> {
  explicit tuning_session_state(tuning_session_actor::pointer self);

  void open(std::string id, wire::session_opened job, session_listener_actor listener,
            tuning_session_options opts);
  /// Only this session's records, and none once it is ending. Each record,
  /// from the bus or replayed from the pool, changes the state once.
  bool wants(const wire::envelope& e) const override;
  /// Replays the pool and re-asks an unanswered request.
  void replay();
  /// Asks for the trials the free slots and the budget allow, or ends the
  /// session when none may come and none is in flight.
  void fill_slots();
  void send_request(int number, int slots);
  /// After the first replay of a resumed session: publishes again the
  /// proposals with no result and the failures with no diagnosis, and asks
  /// again an unanswered request.
  void recover();
  /// Ends the session as cancelled; its running trials are stopped by the
  /// validator, which sees the cancelled status.
  void cancel(const std::string& reason);
  void finish(session_state end);
  void fail(const std::string& reason);

  /// Trial numbers that count against the budget (proposed or ended, not skipped).
  int trials_used() const;

  std::string id;
  wire::session_opened job;
  session_listener_actor listener;
  session_phase phase = session_phase::opening;
  int slots = 1;                ///< the pools' capacities together
  std::set<int> results;        ///< trials whose result was handled
  std::set<int> used;           ///< trials proposed or run (skipped ones excluded)
  std::set<int> in_flight;      ///< proposed, no result yet
  std::set<int> awaiting;       ///< failed trials whose diagnosis comes next
  int requested = 0;            ///< the number of the last analysis request
  int requested_slots = 0;      ///< the slots it asked for
  bool answered = true;         ///< the last request got its answer
  int exhausted_after = -1;     ///< results when the last "exhausted" answer came
  std::string no_pool;          ///< why no pool is left (proposal::no_pool); the session ends
  int requested_after = -1;     ///< results when the last request was sent
  int64_t last_progress_ms = 0; ///< steady-clock time of the last event
  uint64_t replayed_to = 0;     ///< the pool sequence number replays have read up to
  std::chrono::milliseconds tick{500};
  bool recovering = false;      ///< resumed, the first replay still to come
  std::map<int, wire::envelope> unfinished;  ///< proposals with no result yet
  std::map<int, wire::envelope> undiagnosed; ///< failed results with no diagnosis yet
  std::string cancel_reason;
  /// Why the session converged (the stop decision); once set, nothing more
  /// is asked for and the session ends when no trial is in flight.
  std::string stop_text;
  static inline const char* name = "tuning_session";
};

tuning_session_actor::behavior_type
tuning_session(tuning_session_actor::stateful_pointer<tuning_session_state> self, agent_deps deps,
               bus_bridge* bridge, std::string id, wire::session_opened job,
               session_listener_actor listener, tuning_session_options opts);

/// How a session ended, as its listener was told.
struct session_end {
  session_state state = session_state::failed;
  std::string text;
};

/// A blocking actor as a session's listener: it takes the done message with
/// receive() (await_session).
session_listener_actor listener_of(caf::scoped_actor& self);

/// Waits for `session` (a GPU or a TPU one) to end: its done message, or its
/// death (a down message with the reason, as an error). `self` is the
/// session's listener (listener_of). `timeout` 0 waits without limit.
caf::expected<session_end> await_session(caf::scoped_actor& self, const session_actor& session,
                                         std::chrono::seconds timeout = std::chrono::seconds(0));

} // namespace paratune
