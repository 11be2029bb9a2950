#pragma once

// What every agent is made of, in the style of zeek/broker's master_state:
// a state struct that holds the agent's logic as methods, derived from
// basic_agent_state, and a thin behavior that hands bus messages to dispatch().
//
//   struct analyst_state : basic_agent_state<bottleneck_analyst_actor> {
//     explicit analyst_state(bottleneck_analyst_actor::pointer self) : basic_agent_state(self) {
//       on<wire::analysis_request>([this](const wire::envelope& e, wire::analysis_request r) {...});
//     }
//   };
//
// The state is a template over the agent's typed interface
// (actors/agent_interfaces.hpp): `self` is the typed actor, so what the
// state sends itself is checked against what its behavior handles. The
// member functions live in agent.cpp, instantiated there for each agent
// interface.
//
// dispatch() decodes, checks the type, decodes the body and calls the
// handler inside a try: a message that does not decode is counted and
// logged, a handler that throws is logged with its session, and the agent
// lives on. An exception that escapes anyway (a response callback) reaches
// the actor's exception handler, which ends the actor with the reason, so
// that whoever monitors it learns why (runtime's watchdog, a session's
// caller).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agent_interfaces.hpp"
#include "actors/interfaces.hpp"
#include "adapters/process/process_environment.hpp"
#include "ledger/ledger_book.hpp"
#include "messages/codec.hpp"

namespace paratune {

class child_process;

/// What every agent talks through: the pool and the bus.
struct agent_deps {
  pool_actor pool;
  egress_actor egress;
};

/// The callbacks a foreign thread (a child's reader, a Slurm job's
/// watcher) calls with a trial's lines and its end: they reach `me` as
/// (line_atom, key, line) and (exited_atom, key, status) while it lives.
struct output_callbacks {
  std::function<void(const std::string&)> on_line;
  std::function<void(int)> on_exit;
};
output_callbacks output_handlers(const child_output_actor& me, const std::string& key);

/// Starts `argv` as a child process (fork and exec, no shell) whose lines
/// and exit status come to `me` as (line_atom, key, line) and (exited_atom,
/// key, status), while it lives: the child's reader thread is a foreign
/// thread. Throws what child_process throws.
std::unique_ptr<child_process> launch_child(const child_output_actor& me,
                                            std::vector<std::string> argv,
                                            const std::string& key,
                                            std::optional<process_env> env = std::nullopt);

/// The state every agent derives from, over its typed interface `Handle`
/// (actors/agent_interfaces.hpp).
template <class Handle>
class basic_agent_state {
public:
  /// The agent's interface, and the typed actor its state belongs to.
  using handle_type = Handle;
  using pointer = typename Handle::pointer;
  using history_handler = std::function<void(std::vector<wire::envelope>)>;
  using failure_handler = std::function<void(const caf::error&)>;
  using ledger_handler = std::function<void(const session_ledger&)>;
  using job_handler = std::function<void(const wire::session_opened*)>;

  explicit basic_agent_state(pointer self);
  virtual ~basic_agent_state() = default;

  /// Connects the state to the pool and the bus; the behavior calls it first.
  void start(agent_deps deps);

  /// Handles bodies of type T: `handler(envelope, body)`.
  template <class T, class F>
  void on(F handler) {
    handlers_[wire::type_name<T>()] = [handler](const wire::envelope& e) {
      handler(e, wire::body_of<T>(e));
    };
  }

  /// A bus payload: decoded, checked and routed to its handler. Types with
  /// no handler are ignored (topics carry several types).
  void dispatch(const std::string& topic, const std::string& payload);
  /// An envelope already decoded (read back from the pool).
  void dispatch(const wire::envelope& e);

  /// A record the pool published as it stored it ("record.<session>", for
  /// agents subscribed to the feed): by default the agent's ledger of that
  /// session, if it keeps one, follows it (session_ledger::follow). The
  /// bottleneck analyst keeps them for the worker that next holds the
  /// session instead.
  virtual void on_record(const wire::envelope& e);

  /// Whether dispatch() hands `e` to its handler. Every envelope, unless a
  /// state narrows it (a session takes only its own records).
  virtual bool wants(const wire::envelope& e) const { return true; }

  /// Writes `e` to the pool; `then` runs once stored. A refused write goes
  /// to `failed`, or is logged when there is none.
  void store(wire::envelope e, std::function<void(uint64_t)> then = {},
             failure_handler failed = {});

  /// Writes `e` to the pool, then publishes it with its sequence number on
  /// `topic`: the pool first, because the bus may drop what the pool keeps.
  /// `then` runs once stored; a refused write goes to `failed`, or is logged.
  void store_and_publish(const std::string& topic, wire::envelope e,
                         std::function<void(uint64_t)> then = {},
                         failure_handler failed = {});

  /// Publishes without storing (telemetry: high volume, summarised later).
  void publish_only(const std::string& topic, const wire::envelope& e);

  /// Publishes again the proposals of `ledger`'s session that have no
  /// result, each with the number the pool holds it at: after a restart the
  /// validator runs each once more, or attaches to its Slurm job. How many.
  int republish_in_flight(const session_ledger& ledger);

  /// Reads a session's records from the pool (those after `after_seq`
  /// only, when given), then calls `then`. A read the pool refuses goes to
  /// `failed`, or is logged when there is none. An exception from `then` is
  /// logged with the session.
  void with_history(const std::string& session, history_handler then,
                    failure_handler failed = {}, uint64_t after_seq = 0);

  /// Brings the agent's ledger of `session` up to date (a read of what the
  /// pool gained since it was last brought up to date: the whole session
  /// only the first time), then calls `then` with it. A read the pool
  /// refuses goes to `failed`, or is logged when there is none.
  void with_ledger(const std::string& session, ledger_handler then, failure_handler failed = {});

  /// As with_ledger, for a message stored at `seq`: when the ledger holds
  /// every record up to `seq` already (followed on the bus since it was
  /// last read), `then` runs at once without reading the pool.
  void with_current_ledger(const std::string& session, uint64_t seq, ledger_handler then,
                           failure_handler failed = {});

  /// Calls `then` with the session's job (null when the session has none:
  /// not a tuning session). A job never changes once stored, so the pool is
  /// read only while the agent's ledger has not seen it yet.
  void with_job(const std::string& session, job_handler then, failure_handler failed = {});

  /// Messages that did not decode or whose handler threw.
  uint64_t dropped() const { return dropped_; }

  pointer self;
  agent_deps deps;
  /// The sessions' ledgers this agent keeps (shared by an agent's workers).
  std::shared_ptr<ledger_book> ledgers = std::make_shared<ledger_book>(ledger_book_capacity);

protected:
  /// Runs `body`, logging an exception with the session instead of dying.
  void guarded(const std::string& session, const std::function<void()>& body);
  /// Drops the ledger of the session `e` ends, when it is a final status.
  void forget_if_ended(const wire::envelope& e);

private:
  std::map<std::string, std::function<void(const wire::envelope&)>, std::less<>> handlers_;
  uint64_t dropped_ = 0;
};

/// The state of an agent that reacts to the bus alone.
using agent_state = basic_agent_state<bus_agent_actor>;

/// The behavior of an agent that reacts to the bus alone: `deps` go to its
/// state, every bus message to dispatch(). Agents with messages of their
/// own (the validator, the sessions) write the same first handler.
template <class State>
bus_agent_actor::behavior_type bus_agent(bus_agent_actor::stateful_pointer<State> self,
                                         agent_deps deps) {
  self->state.start(std::move(deps));
  return {
    [self](bus_atom, const std::string& topic, const std::string& payload) {
      self->state.dispatch(topic, payload);
    },
  };
}

// Instantiated in agent.cpp, once per agent interface.
extern template class basic_agent_state<bus_agent_actor>;
extern template class basic_agent_state<analysis_worker_actor>;
extern template class basic_agent_state<validator_actor>;
extern template class basic_agent_state<telemetry_agent_actor>;
extern template class basic_agent_state<tuning_session_actor>;
extern template class basic_agent_state<tpu_session_actor>;

/// The first record of type T in a history, or nullptr.
template <class T>
const wire::envelope* find_first(const std::vector<wire::envelope>& history) {
  for (const auto& e : history)
    if (e.type == wire::type_name<T>())
      return &e;
  return nullptr;
}

/// How many records of type T a history holds.
template <class T>
int count_of(const std::vector<wire::envelope>& history) {
  int n = 0;
  for (const auto& e : history)
    n += e.type == wire::type_name<T>();
  return n;
}

} // namespace paratune
