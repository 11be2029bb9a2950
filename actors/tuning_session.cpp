#include "actors/tuning_session.hpp"

#include <algorithm>
#include <chrono>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/bus_bridge.hpp"
#include "core/best_choice.hpp"
#include "core/input_error.hpp"
#include "decisions/session_step.hpp"
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

/// Trials that ran, as every view counts them (a skipped one spent no budget).
int trials_run(const session_ledger& ledger) {
  int n = 0;
  for (const auto& [number, t] : ledger.trials())
    n += t.result && spends_budget(t.result->status);
  return n;
}

wire::session_status status_of(session_state end, const std::vector<trial_outcome>& outcomes) {
  wire::session_status s;
  s.state = end;
  s.trials_done = int(std::count_if(outcomes.begin(), outcomes.end(),
                                    [](const auto& o) { return spends_budget(o.status); }));
  // The best as every view names it: the tie rule among trials measured
  // within noise (core/best_choice), not the highest measurement alone.
  std::vector<measured_option> measured;
  for (size_t i = 0; i < outcomes.size(); ++i)
    if (const auto& o = outcomes[i]; o.measured())
      measured.push_back({trial_number(outcomes, i), o.tflops_per_gpu, o.peak_memory_mib,
                          o.memory_limit_mib, non_default_keys(to_map(o.config))});
  s.best_trial = choose_best(measured).trial;
  for (const auto& m : measured)
    if (m.trial == s.best_trial)
      s.best_tflops = m.tflops;
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
  // The pool's copy of each record ("record.<id>") feeds the session's
  // ledger (on_record); the writer's own message, which comes after it,
  // says the ledger has news, and the ledger decides. Nothing is kept here.
  const auto news = [this](const wire::envelope& e, const auto&) { advance(e.seq); };
  on<wire::proposal>(news);
  on<wire::trial_started>(news);
  on<wire::trial_result>(news);
  on<wire::failure_diagnosis>(news);
  on<wire::analysis_report>(news);
}

void tuning_session_state::open(std::string sid, wire::session_opened j, session_listener_actor l,
                                tuning_session_options opts) {
  tick = opts.tick;
  id = std::move(sid);
  job = std::move(j);
  slots_ = total_capacity(job);
  listener = std::move(l);
  last_progress_ms_ = now_ms();
  if (opts.resume) {
    // The pool has the session: the first tick reads it, then asks again
    // for what was in flight when the last process ended (recover()).
    phase = session_phase::running;
    recovering_ = true;
    self->send(self, tick_atom_v);
    return;
  }
  store_and_publish(topics::session_status(id), wire::make_envelope(id, 0, job),
                    [this](uint64_t seq) {
                      phase = session_phase::running;
                      advance(seq);
                      self->delayed_send(self, tick, tick_atom_v);
                    });
}

bool tuning_session_state::wants(const wire::envelope& e) const {
  return phase != session_phase::ending && e.session == id;
}

void tuning_session_state::advance(uint64_t seq) {
  if (phase != session_phase::running || recovering_)
    return;
  with_current_ledger(
    id, seq, [this](const session_ledger& ledger) { act(ledger); },
    [this](const caf::error& err) { fail("cannot read the session's history: " + describe(err)); });
}

void tuning_session_state::act(const session_ledger& ledger) {
  if (phase != session_phase::running)
    return;
  if (ledger.applied() != seen_records_) {
    seen_records_ = ledger.applied();
    last_progress_ms_ = now_ms();
  }
  if (const auto* report = ledger.report_for(ledger.latest_request()))
    if (const auto r = wire::body_of<wire::analysis_report>(*report); !r.error.empty())
      return fail("the analysis after trial " + std::to_string(r.after_trial)
                  + " failed: " + r.error);
  const auto step = next_session_step(ledger, {slots_, job.trials, asked_});
  switch (step.what) {
    case session_step::action::wait: return;
    case session_step::action::ask:
      return send_request(step.request, step.slots, ledger.results());
    case session_step::action::finish: return finish(step.end, step.text);
    case session_step::action::fail: return fail(step.text);
  }
}

void tuning_session_state::send_request(int number, int count, int after) {
  asked_ = number;
  asked_slots_ = count;
  last_progress_ms_ = now_ms();
  store_and_publish(topics::analysis(id),
                    wire::make_envelope(id, after, wire::analysis_request{after, number, count}));
}

void tuning_session_state::replay() {
  if (phase != session_phase::running)
    return;
  with_ledger(
    id,
    [this](const session_ledger& ledger) {
      if (phase != session_phase::running)
        return;
      if (recovering_)
        return recover(ledger);
      const bool unanswered = asked_ > ledger.latest_request() || !ledger.latest_answered();
      const auto limit =
        analysis_limit_ms(wire::reasoners_of(job).of(reasoning_agent::strategy_generation));
      if (unanswered && ledger.applied() == seen_records_
          && now_ms() - last_progress_ms_ > limit) {
        const int number = std::max(asked_, ledger.latest_request());
        spdlog::info("session {}: no answer to analysis request {}, asking again", id, number);
        const int count = asked_ >= number       ? asked_slots_
                          : ledger.last_request() ? ledger.last_request()->slots
                                                  : slots_;
        return send_request(number, count, ledger.results());
      }
      act(ledger);
    },
    [this](const caf::error& err) { fail("cannot read the session's history: " + describe(err)); });
}

void tuning_session_state::recover(const session_ledger& ledger) {
  recovering_ = false;
  // What the agents of the process that ended were doing is asked for
  // again from the pool's own records: each answer is idempotent (the
  // validator runs a trial once, attaching to a Slurm job that still runs;
  // the generator republishes an answered request; a diagnosis is keyed by
  // its trial).
  const int unfinished = republish_in_flight(ledger);
  int undiagnosed = 0;
  for (const auto& [number, t] : ledger.trials()) {
    if (t.awaiting_diagnosis()) {
      auto e = wire::make_envelope(id, number, *t.result);
      e.seq = t.result_seq;
      publish_only(topics::trial_state(id, number), e);
      ++undiagnosed;
    }
  }
  spdlog::info("session {}: resumed with {} results, {} trials in flight, {} awaiting diagnosis",
               id, ledger.results(), unfinished, undiagnosed);
  seen_records_ = ledger.applied();
  if (!ledger.latest_answered() && ledger.last_request())
    return send_request(ledger.latest_request(), ledger.last_request()->slots, ledger.results());
  act(ledger);
}

void tuning_session_state::cancel(const std::string& reason) {
  if (phase == session_phase::ending)
    return;
  finish(session_state::cancelled, reason);
}

void tuning_session_state::finish(session_state end, std::string text) {
  if (phase == session_phase::ending)
    return;
  phase = session_phase::ending;
  with_ledger(
    id,
    [this, end, text](const session_ledger& ledger) {
      wire::session_status s;
      try {
        if (!ledger.unreadable().empty())
          throw input_error(ledger.unreadable());
        s = status_of(end, ledger.outcomes());
        // A cancel's reason, or why the session converged, says it.
        if (!text.empty())
          s.text = text;
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
  s.trials_done = trials_run(*ledgers->of(id));
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
  bridge->subscribe_while_alive(self, {topics::record(id), topics::proposal(id), topics::report(id),
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

} // namespace paratune
