#pragma once

#include <chrono>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agent.hpp"
#include "actors/session_await.hpp"
#include "ledger/session_ledger.hpp"
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
/// measured. What it does next is decided from the session's ledger alone
/// (decisions/session_step): it waits for a failure's diagnosis before
/// asking (its constraint shapes the next choices), and it ends when the
/// budget is spent, or nothing new and valid remains, and no trial is in
/// flight; then it records the session's end and tells `listener`
/// (done_atom, id, session_state, text).
///
/// It keeps no copy of the session: its ledger follows the records the
/// pool stores for it ("record.<id>"), each message of an agent says the
/// ledger has news (read from the pool when the ledger missed a record),
/// and the ledger decides. It treats the bus as lossy: a sequence gap (replay_atom) or the
/// tick replays the pool, and a request unanswered for too long is asked
/// again under its own number. It fails, with the reason stored and told,
/// when its history cannot be read, an analysis of it failed, or an agent
/// it needs died.
struct tuning_session_state : basic_agent_state<tuning_session_actor> {
  explicit tuning_session_state(tuning_session_actor::pointer self);

  void open(std::string id, wire::session_opened job, session_listener_actor listener,
            tuning_session_options opts);
  /// Only this session's records, and none once it is ending.
  bool wants(const wire::envelope& e) const override;
  /// A record of the session came on the bus: its ledger, then the next step.
  void advance(uint64_t seq);
  /// Reads what the pool gained, asks again a request unanswered too long,
  /// or takes the next step.
  void replay();
  /// Cancelled by a client: its running trials are stopped by the
  /// validator, which sees the cancelled status.
  void cancel(const std::string& reason);
  void fail(const std::string& reason);

  std::string id;
  wire::session_opened job;
  session_listener_actor listener;
  session_phase phase = session_phase::opening;
  std::chrono::milliseconds tick{500};
  static inline const char* name = "tuning_session";

private:
  /// The next step the ledger decides (decisions/session_step).
  void act(const session_ledger& ledger);
  void send_request(int number, int slots, int after);
  /// After the first replay of a resumed session: publishes again the
  /// proposals with no result and the failures with no diagnosis, then
  /// goes on (an unanswered request is asked again).
  void recover(const session_ledger& ledger);
  void finish(session_state end, std::string text = {});

  int slots_ = 1;                ///< the pools' capacities together
  int asked_ = 0;                ///< the last request sent, until the ledger holds it
  int asked_slots_ = 0;          ///< the slots it asked for
  uint64_t seen_records_ = 0;    ///< records the ledger had at the last step
  int64_t last_progress_ms_ = 0; ///< steady-clock time a record last came
  bool recovering_ = false;      ///< resumed, the first replay still to come
};

tuning_session_actor::behavior_type
tuning_session(tuning_session_actor::stateful_pointer<tuning_session_state> self, agent_deps deps,
               bus_bridge* bridge, std::string id, wire::session_opened job,
               session_listener_actor listener, tuning_session_options opts);

} // namespace paratune
