#include "actors/agent.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "adapters/process/child_process.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"

namespace paratune {

template <class Handle>
basic_agent_state<Handle>::basic_agent_state(pointer self) : self(self) {
  // An exception that escaped every handler ends the actor with its text as
  // the exit reason: monitors see why, nothing dies silently.
  self->set_exception_handler([self](std::exception_ptr& ptr) -> caf::error {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ptr);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("{}: died of an exception: {}", self->name(), what);
    return caf::make_error(ec::agent_failure, std::string(self->name()) + ": " + what);
  });
}

template <class Handle>
void basic_agent_state<Handle>::start(agent_deps d) {
  deps = std::move(d);
}

template <class Handle>
void basic_agent_state<Handle>::dispatch(const std::string& topic, const std::string& payload) {
  wire::envelope e;
  try {
    e = wire::decode_envelope(payload);
  } catch (const wire::decode_error& err) {
    ++dropped_;
    spdlog::warn("{}: dropped a message on '{}': {}", self->name(), topic, err.what());
    return;
  }
  if (topic.starts_with(topics::record_prefix)) {
    // The pool's copy of a stored record: it feeds the ledger; the message
    // the writer published itself is what the agent acts on.
    if (e.seq > 0 && wants(e)) // a probe of the bus is no stored record
      guarded(e.session, [&] { on_record(e); });
    forget_if_ended(e);
    return;
  }
  dispatch(e);
}

template <class Handle>
void basic_agent_state<Handle>::on_record(const wire::envelope& e) {
  if (auto ledger = ledgers->find(e.session))
    ledger->follow(e);
}

template <class Handle>
void basic_agent_state<Handle>::forget_if_ended(const wire::envelope& e) {
  // An ended session's ledger is of no more use to this agent.
  if (e.type == wire::type_name<wire::session_status>())
    guarded(e.session, [&] {
      if (is_final(wire::body_of<wire::session_status>(e).state))
        ledgers->forget(e.session);
    });
}

template <class Handle>
void basic_agent_state<Handle>::dispatch(const wire::envelope& e) {
  if (!wants(e))
    return;
  auto it = handlers_.find(e.type);
  if (it != handlers_.end())
    guarded(e.session, [&] { it->second(e); });
  forget_if_ended(e);
}

template <class Handle>
void basic_agent_state<Handle>::guarded(const std::string& session,
                                        const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& err) {
    ++dropped_;
    spdlog::warn("{}: session {}: {}", self->name(), session, err.what());
  }
}

template <class Handle>
void basic_agent_state<Handle>::store(wire::envelope e, std::function<void(uint64_t)> then,
                        failure_handler failed) {
  self->request(deps.pool, caf::infinite, append_atom_v, e)
    .then(
      [this, session = e.session, then](uint64_t seq) {
        if (then)
          guarded(session, [&] { then(seq); });
      },
      [this, e, failed](caf::error& err) {
        if (failed)
          return failed(err);
        spdlog::error("{}: cannot store {} for session {}: {}", self->name(), e.type, e.session,
                      describe(err));
      });
}

template <class Handle>
void basic_agent_state<Handle>::store_and_publish(const std::string& topic, wire::envelope e,
                                    std::function<void(uint64_t)> then, failure_handler failed) {
  store(
    e,
    [this, topic, e, then](uint64_t seq) mutable {
      e.seq = seq;
      publish_only(topic, e);
      if (then)
        then(seq);
    },
    std::move(failed));
}

template <class Handle>
void basic_agent_state<Handle>::publish_only(const std::string& topic, const wire::envelope& e) {
  self->send(deps.egress, publish_atom_v, topic, wire::pack(e));
}

template <class Handle>
int basic_agent_state<Handle>::republish_in_flight(const session_ledger& ledger) {
  int n = 0;
  for (const auto& [number, t] : ledger.trials())
    if (t.in_flight()) {
      auto e = wire::make_envelope(ledger.session(), number, *t.proposal);
      e.seq = t.proposal_seq; // the validator runs what the pool holds at this number
      publish_only(topics::proposal(ledger.session()), e);
      ++n;
    }
  return n;
}

output_callbacks output_handlers(const child_output_actor& me, const std::string& key) {
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(me);
  auto forward = [weak](auto... xs) {
    if (auto strong = caf::actor_cast<child_output_actor>(weak))
      caf::anon_send(strong, xs...);
  };
  return {[=](const std::string& line) { forward(line_atom_v, key, line); },
          [=](int code) { forward(exited_atom_v, key, code); }};
}

std::unique_ptr<child_process> launch_child(const child_output_actor& me,
                                            std::vector<std::string> argv, const std::string& key,
                                            std::optional<process_env> env) {
  auto [on_line, on_exit] = output_handlers(me, key);
  return std::make_unique<child_process>(std::move(argv), std::move(on_line), std::move(on_exit),
                                         std::move(env));
}

template <class Handle>
void basic_agent_state<Handle>::with_history(const std::string& session, history_handler then,
                               failure_handler failed, uint64_t after_seq) {
  self->request(deps.pool, caf::infinite, history_atom_v, session, after_seq)
    .then(
      [this, session, then](std::vector<wire::envelope>& records) {
        guarded(session, [&] { then(std::move(records)); });
      },
      [this, session, failed](caf::error& err) {
        if (failed)
          return failed(err);
        spdlog::error("{}: cannot read session {}: {}", self->name(), session, describe(err));
      });
}

template <class Handle>
void basic_agent_state<Handle>::with_ledger(const std::string& session, ledger_handler then,
                              failure_handler failed) {
  auto ledger = ledgers->of(session);
  with_history(
    session,
    [ledger, then](std::vector<wire::envelope> records) {
      // Records already applied (two reads in flight at once, or followed
      // on the bus meanwhile) are skipped.
      ledger->apply_read(records);
      then(*ledger);
    },
    std::move(failed), ledger->last_seq());
}

template <class Handle>
void basic_agent_state<Handle>::with_current_ledger(const std::string& session, uint64_t seq,
                                      ledger_handler then, failure_handler failed) {
  if (auto ledger = ledgers->find(session); ledger && ledger->holds(seq))
    return guarded(session, [&] { then(*ledger); });
  with_ledger(session, std::move(then), std::move(failed));
}

template <class Handle>
void basic_agent_state<Handle>::with_job(const std::string& session, job_handler then,
                           failure_handler failed) {
  if (const auto* job = ledgers->of(session)->job())
    return then(job);
  with_ledger(
    session, [then](const session_ledger& ledger) { then(ledger.job()); }, std::move(failed));
}

template class basic_agent_state<bus_agent_actor>;
template class basic_agent_state<analysis_worker_actor>;
template class basic_agent_state<validator_actor>;
template class basic_agent_state<telemetry_agent_actor>;
template class basic_agent_state<tuning_session_actor>;
template class basic_agent_state<tpu_session_actor>;

} // namespace paratune
