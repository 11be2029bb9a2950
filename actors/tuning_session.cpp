#include "actors/tuning_session.hpp"

#include <algorithm>
#include <chrono>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/bus_bridge.hpp"
#include "core/input_error.hpp"
#include "messages/conversions.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"

namespace paratune {

namespace {

constexpr int64_t quiet_limit_ms = 8000; ///< re-ask after this long without news

/// How long an analysis may take before it is asked again: the quiet
/// limit, plus, when a language model answers, its two asks with every
/// retry at the full timeout and a wait of up to 10 s between attempts. A
/// re-ask while the model is still thinking would only ask it twice.
int64_t analysis_limit_ms(const reasoner_settings& r) {
  if (r.mode == reasoner_mode::builtin)
    return quiet_limit_ms;
  const int64_t attempts = r.max_retries + 1;
  return quiet_limit_ms + 2 * (attempts * int64_t(r.timeout_s * 1000) + r.max_retries * 10000);
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::steady_clock::now().time_since_epoch()).count();
}

wire::session_status status_of(session_state end, const std::vector<trial_outcome>& outcomes) {
  wire::session_status s;
  s.state = end;
  s.trials_done = int(std::count_if(outcomes.begin(), outcomes.end(),
                                    [](const auto& o) { return spends_budget(o.status); }));
  for (size_t i = 0; i < outcomes.size(); ++i)
    if (outcomes[i].measured() && outcomes[i].tflops_per_gpu > s.best_tflops) {
      s.best_tflops = outcomes[i].tflops_per_gpu;
      s.best_trial = trial_number(outcomes, i);
    }
  s.text = end == session_state::exhausted   ? "all plausible configurations have been tried"
           : end == session_state::cancelled ? "cancelled"
                                             : "trial budget spent";
  return s;
}

int total_capacity(const wire::session_opened& job) {
  int n = 0;
  for (const auto& p : job.pools)
    n += std::max(1, p.capacity);
  return std::max(1, n);
}

} // namespace

tuning_session_state::tuning_session_state(tuning_session_actor::pointer self)
  : basic_agent_state(self) {
  on<wire::analysis_request>([this](const wire::envelope&, const wire::analysis_request& r) {
    // Only from a replay of the pool (the session does not subscribe to
    // requests): a resumed session learns where its requests stood.
    if (r.request > requested) {
      requested = r.request;
      requested_slots = r.slots;
      requested_after = r.after_trial;
      answered = false;
    }
  });
  on<wire::proposal>([this](const wire::envelope& e, const wire::proposal& p) {
    last_progress_ms = now_ms();
    if (p.trial > 0 && !results.count(p.trial)) {
      used.insert(p.trial);
      in_flight.insert(p.trial);
      unfinished[p.trial] = e;
    }
    if (p.request != requested || answered)
      return;
    answered = true;
    if (p.converged)
      stop_text = p.stop_reason;  // the validator ends the running trials
    if (p.exhausted)
      exhausted_after = int(results.size());
    if (!p.no_pool.empty())
      no_pool = p.no_pool;
    fill_slots();
  });
  on<wire::analysis_report>([this](const wire::envelope&, const wire::analysis_report& r) {
    if (!r.error.empty())
      fail("the analysis after trial " + std::to_string(r.after_trial) + " failed: " + r.error);
  });
  on<wire::trial_started>([this](const wire::envelope&, const wire::trial_started&) {
    last_progress_ms = now_ms();
  });
  on<wire::trial_result>([this](const wire::envelope& e, const wire::trial_result& r) {
    const bool proposed = in_flight.count(r.trial) > 0;
    if (!results.insert(r.trial).second)
      return;
    unfinished.erase(r.trial);
    last_progress_ms = now_ms();
    if (!proposed && !answered) {
      // The generator answered with a result instead of a proposal (the
      // initial configuration skipped, a command that did not render).
      answered = true;
    }
    in_flight.erase(r.trial);
    // A skipped trial was refused before launch (a replay pool's unavailable
    // configuration): it spends none of the budget its proposal reserved.
    if (r.status != trial_status::skipped)
      used.insert(r.trial);
    else
      used.erase(r.trial);
    if (r.status == trial_status::failed) {
      awaiting.insert(r.trial);
      undiagnosed[r.trial] = e;
    }
    fill_slots();
  });
  on<wire::failure_diagnosis>([this](const wire::envelope& e, const wire::failure_diagnosis&) {
    undiagnosed.erase(e.trial);
    if (awaiting.erase(e.trial))
      fill_slots();
  });
}

void tuning_session_state::open(std::string sid, wire::session_opened j, session_listener_actor l,
                                tuning_session_options opts) {
  tick = opts.tick;
  id = std::move(sid);
  job = std::move(j);
  slots = total_capacity(job);
  listener = std::move(l);
  last_progress_ms = now_ms();
  if (opts.resume) {
    // The pool has the session: the first tick replays it, then asks again
    // for what was in flight when the last process ended (recover()).
    phase = session_phase::running;
    recovering = true;
    self->send(self, tick_atom_v);
    return;
  }
  store_and_publish(topics::session_status(id), wire::make_envelope(id, 0, job), [this](uint64_t) {
    phase = session_phase::running;
    fill_slots();
    self->delayed_send(self, tick, tick_atom_v);
  });
}

bool tuning_session_state::wants(const wire::envelope& e) const {
  return phase != session_phase::ending && e.session == id;
}

int tuning_session_state::trials_used() const { return int(used.size()); }

void tuning_session_state::send_request(int number, int count) {
  requested = number;
  requested_slots = count;
  answered = false;
  last_progress_ms = now_ms();
  const int after = int(results.size());
  requested_after = after;
  store_and_publish(topics::analysis(id),
                    wire::make_envelope(id, after, wire::analysis_request{after, number, count}));
}

void tuning_session_state::fill_slots() {
  if (phase != session_phase::running || !awaiting.empty() || !answered)
    return;
  if (!stop_text.empty()) {
    // Converged: nothing more is asked; the trials still running were told
    // to end, and the session ends once their results are in.
    if (in_flight.empty())
      finish(session_state::converged);
    return;
  }
  if (!no_pool.empty()) {
    // Every pool is paused: the trials still running end, then the session.
    if (in_flight.empty())
      fail(no_pool);
    return;
  }
  const int budget_left = job.trials - trials_used();
  // A result the last analysis did not see: ask again for what is free.
  const bool news = int(results.size()) > requested_after;
  if (budget_left <= 0 || (!news && requested > 0)) {
    // Nothing more to ask for now: the budget is spent, or the last
    // analysis saw every result (what it could not place waits for one).
    if (in_flight.empty())
      finish(budget_left <= 0 || exhausted_after < int(results.size()) ? session_state::finished
                                                                      : session_state::exhausted);
    return;
  }
  const int free = slots - int(in_flight.size());
  if (free > 0)
    send_request(requested + 1, std::min(free, budget_left));
}

void tuning_session_state::replay() {
  if (phase != session_phase::running)
    return;
  // Only what the pool gained since the last replay: every record up to
  // `replayed_to` was dispatched by an earlier one (the pool appends in
  // sequence order and serves reads between appends), so a tick costs what
  // is new, not the whole history.
  with_history(
    id,
    [this](std::vector<wire::envelope> history) {
      // The session's own ledger follows the same reads: finish() needs
      // only what came after the last of them.
      ledgers->of(id)->apply(history);
      for (const auto& e : history) {
        replayed_to = std::max(replayed_to, e.seq);
        dispatch(e); // each record counts once; a bad one is logged and skipped
      }
      if (phase != session_phase::running)
        return;
      if (recovering)
        return recover();
      if (!answered && now_ms() - last_progress_ms > analysis_limit_ms(
                                  wire::reasoners_of(job).of(reasoning_agent::strategy_generation))) {
        spdlog::info("session {}: no answer to analysis request {}, asking again", id, requested);
        send_request(requested, requested_slots);
      } else {
        fill_slots();
      }
    },
    [this](const caf::error& err) { fail("cannot read the session's history: " + describe(err)); },
    replayed_to);
}

void tuning_session_state::recover() {
  recovering = false;
  // What the agents of the process that ended were doing is asked for
  // again from the pool's own records: each answer is idempotent (the
  // validator runs a trial once, attaching to a Slurm job that still runs;
  // the generator republishes an answered request; a diagnosis is keyed by
  // its trial).
  for (const auto& [trial, e] : unfinished)
    publish_only(topics::proposal(id), e);
  for (const auto& [trial, e] : undiagnosed)
    publish_only(topics::trial_state(id, trial), e);
  spdlog::info("session {}: resumed with {} results, {} trials in flight, {} awaiting diagnosis",
               id, results.size(), unfinished.size(), undiagnosed.size());
  if (!answered)
    send_request(requested, requested_slots);
  else
    fill_slots();
}

void tuning_session_state::cancel(const std::string& reason) {
  if (phase == session_phase::ending)
    return;
  cancel_reason = reason;
  finish(session_state::cancelled);
}

void tuning_session_state::finish(session_state end) {
  if (phase == session_phase::ending)
    return;
  phase = session_phase::ending;
  with_ledger(
    id,
    [this, end](const session_ledger& ledger) {
      wire::session_status s;
      try {
        if (!ledger.unreadable().empty())
          throw input_error(ledger.unreadable());
        s = status_of(end, ledger.outcomes());
        if (end == session_state::cancelled && !cancel_reason.empty())
          s.text = cancel_reason;  // the reason says it, as a TPU session's end does
        if (end == session_state::converged)
          s.text = stop_text;
      } catch (const std::exception& e) {
        phase = session_phase::running; // let fail() record it
        return fail(std::string("the session's history does not read: ") + e.what());
      }
      store_and_publish(topics::session_status(id), wire::make_envelope(id, 0, s),
                        [this, end](uint64_t) {
                          self->send(listener, done_atom_v, id, end, std::string());
                          self->quit();
                        });
    },
    [this](const caf::error& err) {
      phase = session_phase::running;
      fail("cannot read the session's history: " + describe(err));
    });
}

void tuning_session_state::fail(const std::string& reason) {
  if (phase == session_phase::ending)
    return;
  phase = session_phase::ending;
  spdlog::error("session {} failed: {}", id, reason);
  wire::session_status s;
  s.state = session_state::failed;
  s.trials_done = int(std::count_if(results.begin(), results.end(),
                                    [this](int t) { return used.count(t) > 0; })); // not skipped
  s.text = reason;
  // Told first: the record is best effort when the pool is what failed.
  self->send(listener, done_atom_v, id, session_state::failed, reason);
  store_and_publish(topics::session_status(id), wire::make_envelope(id, 0, s));
  self->quit(caf::make_error(ec::session_failure, reason));
}

tuning_session_actor::behavior_type
tuning_session(tuning_session_actor::stateful_pointer<tuning_session_state> self, agent_deps deps,
               bus_bridge* bridge, std::string id, wire::session_opened job,
               session_listener_actor listener, tuning_session_options opts) {
  auto& st = self->state;
  st.start(std::move(deps));
  bridge->subscribe_while_alive(self, {topics::proposal(id), topics::report(id),
                                       topics::trial_prefix(id), topics::failure_prefix(id)});
  st.open(std::move(id), std::move(job), std::move(listener), opts);
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      self->state.dispatch(topic, payload);
    },
    [=](replay_atom) { self->state.replay(); },
    [=](tick_atom) {
      self->state.replay();
      self->delayed_send(self, self->state.tick, tick_atom_v);
    },
    [=](cancel_atom, const std::string& reason) { self->state.cancel(reason); },
    [=](agent_down_atom, const std::string& agent, const std::string& reason) {
      self->state.fail("the " + agent + " agent died: " + reason);
    },
  };
}

session_listener_actor listener_of(caf::scoped_actor& self) {
  return caf::actor_cast<session_listener_actor>(self);
}

caf::expected<session_end> await_session(caf::scoped_actor& self, const session_actor& session,
                                         std::chrono::seconds timeout) {
  self->monitor(session);
  caf::expected<session_end> out = caf::make_error(ec::session_failure, "no answer");
  bool waiting = true;
  auto on_done = [&](done_atom, const std::string&, session_state state, const std::string& t) {
    out = session_end{state, t};
    waiting = false;
  };
  auto on_down = [&](caf::down_msg& dm) {
    if (dm.source != session.address())
      return;
    if (waiting)
      out = caf::make_error(ec::session_failure,
                            "the session ended without an answer: " + describe(dm.reason));
    waiting = false;
  };
  while (waiting) {
    if (timeout.count() > 0)
      self->receive(on_done, on_down, caf::after(timeout) >> [&] {
        out = caf::make_error(ec::session_failure, "the session did not end in time");
        waiting = false;
      });
    else
      self->receive(on_done, on_down);
  }
  self->demonitor(session.address());
  return out;
}

} // namespace paratune
