#include "actors/tpu_session.hpp"

#include <chrono>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/bus_bridge.hpp"
#include "actors/trial_key.hpp"
#include "decisions/tpu_session_records.hpp"
#include "ledger/tpu_diagnosis.hpp"
#include "messages/conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"

namespace paratune {

tpu_session_state::tpu_session_state(tpu_session_actor::pointer self) : basic_agent_state(self) {
  // The pool's copy of each record ("record.<id>") feeds the ledger; a
  // trial's state says the ledger has news, and the ledger decides.
  on<wire::trial_result>([this](const wire::envelope& e, const auto&) { advance(e.seq); });
  const auto answered = [this](const wire::envelope& e, const auto&) {
    if (const int n = tpu_trial_of_session(opts.id, e.session))
      check_diagnosis(n, missing_answer::wait);
  };
  on<wire::diagnosis>(answered);
  on<wire::proposal_set>(answered);
}

void tpu_session_state::open(tpu_session_options options, session_listener_actor l) {
  opts = std::move(options);
  listener = std::move(l);
  recovering_ = opts.resume;
  replay();
  self->delayed_send(self, replay_period, tick_atom_v, replay_token);
}

void tpu_session_state::advance(uint64_t seq) {
  // News that comes while this session's own writes are stored is acted
  // on once they are: the ledger must hold both.
  heard_ = std::max(heard_, seq);
  if (ending || recovering_ || writes_ > 0)
    return;
  with_current_ledger(
    opts.id, std::max(heard_, written_), [this](const session_ledger& ledger) { act(ledger); },
    history_failed());
}

std::function<void(const caf::error&)> tpu_session_state::history_failed() {
  return [this](const caf::error& err) {
    fail("cannot read the session's history: " + describe(err));
  };
}

void tpu_session_state::replay() {
  if (ending || writes_ > 0)
    return;
  with_ledger(
    opts.id,
    [this](const session_ledger& ledger) {
      if (recovering_)
        return recover(ledger);
      // A diagnosis the bus lost is in the pool.
      for (const auto& [number, row] : ledger.tpu_runs())
        if (row.diagnosing && row.ended_ms == 0)
          check_diagnosis(number, missing_answer::wait);
      act(ledger);
    },
    history_failed());
}

void tpu_session_state::act(const session_ledger& ledger) {
  if (ending || writes_ > 0)
    return;
  if (!ledger.unreadable().empty())
    return fail("the session's history does not read: " + ledger.unreadable());
  tpu_session_step step;
  try {
    step = next_tpu_step(search(), ledger);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  switch (step.what) {
    case tpu_session_step::action::wait: return;
    case tpu_session_step::action::store_row: return store_row(step.row, ledger);
    case tpu_session_step::action::propose: return propose(step);
    case tpu_session_step::action::finish: return finish(step.end);
    case tpu_session_step::action::fail: return fail(step.text);
  }
}

void tpu_session_state::write(wire::envelope e, const std::string& topic,
                              std::function<void(uint64_t)> then) {
  ++writes_;
  auto stored = [this, then = std::move(then)](uint64_t seq) {
    --writes_;
    written_ = std::max(written_, seq);
    if (then)
      then(seq);
    advance(written_);
  };
  auto refused = [this, what = e.type + " of trial " + std::to_string(e.trial)](auto& err) {
    fail("cannot store the " + what + ": " + describe(err));
  };
  if (topic.empty())
    store(std::move(e), std::move(stored), std::move(refused));
  else
    store_and_publish(topic, std::move(e), std::move(stored), std::move(refused));
}

void tpu_session_state::propose(const tpu_session_step& step) {
  const auto l = trial_launch(opts, runner(), step.trial, step.mesh.mesh, step.pool);
  tpu_trial_records records;
  try {
    records = tpu_trial_records_for(l, step.mesh.title, step.retry_of, wall_clock_ms());
  } catch (const std::exception& e) {
    return fail("cannot make the command of trial " + std::to_string(step.trial) + " on pool '"
                + step.pool + "': " + e.what());
  }
  // The row first: a daemon that restarts knows the trial was proposed.
  write(wire::make_envelope(opts.id, step.trial, records.row), {});
  if (!records.proposal)
    return; // MaxText refuses the mesh: the row says so, nothing runs
  const bool simulated = !l.pool || l.pool->kind == pool_kind::simulated;
  write(wire::make_envelope(opts.id, step.trial, *records.proposal), topics::proposal(opts.id),
        [this, simulated, trial = step.trial](uint64_t) {
          // A run on a cluster waits for its scheduler and trains as long
          // as it must: its clock is the early stopper's.
          if (simulated)
            arm_timer(trial, false);
        });
}

void tpu_session_state::store_row(const wire::tpu_trial_row& row, const session_ledger& ledger) {
  // What the session learned joins the optimization ledger, for later diagnoses to cite.
  const auto learned = tpu_improvement_by(opts.experiment, opts.id, ledger.tpu_runs(), row);
  write(wire::make_envelope(opts.id, row.trial, row), {}, [this, row](uint64_t) {
    if (row.diagnosing)
      request_diagnosis(row);
  });
  if (learned)
    write(wire::make_envelope(wire::optimization_ledger, 0, *learned), {});
}

void tpu_session_state::request_diagnosis(const wire::tpu_trial_row& row) {
  const auto sid = tpu_trial_session(opts.id, row.trial);
  const auto req = diagnosis_request(
    opts, row.mesh, tpu_trial_dir(trial_launch(opts, runner(), row.trial, parse_mesh(row.mesh), row.pool)));
  arm_timer(row.trial, true);
  write(wire::make_envelope(sid, 0, req), topics::diagnose(sid));
}

void tpu_session_state::check_diagnosis(int trial, missing_answer missing,
                                        const std::string& limit) {
  const auto sid = tpu_trial_session(opts.id, trial);
  with_history(
    sid,
    [this, trial, missing, limit](std::vector<wire::envelope> records) {
      const auto a = tpu_diagnosis_answers_in(records);
      const auto what = "trial " + std::to_string(trial);
      if (a.diagnosis && !a.diagnosis->error.empty())
        return fail("the diagnosis of " + what + " failed: " + a.diagnosis->error);
      with_ledger(opts.id, [this, trial, missing, limit, what, a](const session_ledger& ledger) {
        const auto it = ledger.tpu_runs().find(trial);
        if (ending || writes_ > 0 || it == ledger.tpu_runs().end() || !it->second.diagnosing
            || it->second.ended_ms > 0)
          return; // concluded already, or a write of this session comes first
        if (!a.complete()) {
          if (missing == missing_answer::ask_again)
            request_diagnosis(it->second);
          else if (missing == missing_answer::fail)
            fail((a.diagnosis ? "no proposals for " : "no diagnosis of ") + what + limit);
          return;
        }
        std::erase_if(timers_, [trial](const auto& t) { return t.second.trial == trial; });
        store_row(tpu_diagnosed_row(search(), ledger, it->second, *a.diagnosis, *a.proposals,
                                    wall_clock_ms()),
                  ledger);
      });
    },
    [this, sid](const caf::error& err) {
      fail("cannot read the records of " + sid + ": " + describe(err));
    });
}

void tpu_session_state::recover(const session_ledger& ledger) {
  recovering_ = false;
  // The trials in flight go to the validator again: it attaches to a
  // Slurm job that still runs and runs a lost local run again, under the
  // same number. A measured run's diagnosis is read, or asked for again.
  const int unfinished = republish_in_flight(ledger);
  int diagnosing = 0;
  for (const auto& [number, row] : ledger.tpu_runs())
    if (row.diagnosing && row.ended_ms == 0) {
      ++diagnosing;
      check_diagnosis(number, missing_answer::ask_again);
    }
  spdlog::info("tpu session {}: resumed with {} trials in flight, {} awaiting diagnosis", opts.id,
               unfinished, diagnosing);
  act(ledger);
}

void tpu_session_state::arm_timer(int trial, bool diagnosis) {
  const int token = ++tokens_;
  std::erase_if(timers_, [trial](const auto& t) { return t.second.trial == trial; });
  timers_[token] = {trial, diagnosis};
  self->delayed_send(self, step_limit(opts, diagnosis), tick_atom_v, token);
}

void tpu_session_state::on_timeout(int token) {
  if (token == replay_token && !ending) {
    // A result whose notice the bus lost, with nothing after it to show the gap.
    self->delayed_send(self, replay_period, tick_atom_v, replay_token);
    return replay();
  }
  const auto live = timers_.find(token);
  if (ending || live == timers_.end())
    return;
  const auto timer = live->second;
  timers_.erase(live);
  const auto limit = " within " + std::to_string(step_limit(opts, timer.diagnosis).count()) + " s";
  // The bus may have lost what came: the pool has it if it came.
  if (timer.diagnosis)
    return check_diagnosis(timer.trial, missing_answer::fail, limit);
  with_ledger(opts.id, [this, timer, limit](const session_ledger& ledger) {
    const auto* t = ledger.trial(timer.trial);
    if (!ending && !(t && t->result))
      return fail("paratune-tpu-sim did not finish trial " + std::to_string(timer.trial) + limit);
    act(ledger);
  });
}

void tpu_session_state::finish(session_state end, const std::string& text) {
  if (ending)
    return;
  ending = true;
  if (end == session_state::cancelled)
    stop_trials(end, text);
  with_ledger(
    opts.id,
    [this, end, text](const session_ledger& ledger) {
      const auto record = tpu_end_record(ledger, end, text, opts.experiment.mesh, wall_clock_ms());
      // The report is the session's last record: tune and report read it
      // from the pool, and the listener hears only that the session ended.
      store(wire::make_envelope(opts.id, 0, record), [this, end, text](uint64_t) { ended(end, text); },
            [this](const caf::error& e) { ended(session_state::failed, no_end(e)); });
    },
    [this](const caf::error& e) { ended(session_state::failed, no_end(e)); });
}

void tpu_session_state::stop_trials(session_state end, const std::string& text) {
  // The validator ends the session's running trials when it hears the end.
  wire::session_status s;
  s.state = end;
  s.text = text;
  publish_only(topics::session_status(opts.id), wire::make_envelope(opts.id, 0, s));
}

void tpu_session_state::ended(session_state end, const std::string& text) {
  if (end == session_state::failed)
    spdlog::error("tpu session {} failed: {}", opts.id, text);
  self->send(listener, done_atom_v, opts.id, end, text);
  self->quit(end == session_state::failed ? caf::make_error(ec::session_failure, text)
                                          : caf::error{});
}

void tpu_session_state::fail(const std::string& reason) {
  if (ending)
    return;
  ending = true;
  stop_trials(session_state::failed, reason);
  ended(session_state::failed, reason);
}

tpu_session_actor::behavior_type
tpu_session(tpu_session_actor::stateful_pointer<tpu_session_state> self, agent_deps deps,
            bus_bridge* bridge, tpu_session_options options, session_listener_actor listener) {
  auto& st = self->state;
  st.start(std::move(deps));
  bridge->subscribe_while_alive(self, tpu_session_topics(options.id));
  st.open(std::move(options), std::move(listener));
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      self->state.dispatch(topic, payload);
    },
    [=](replay_atom) { self->state.replay(); },
    [=](tick_atom, int token) { self->state.on_timeout(token); },
    [=](cancel_atom, const std::string& why) { self->state.cancel(why); },
    [=](agent_down_atom, const std::string& agent, const std::string& reason) {
      self->state.fail("the " + agent + " agent died: " + reason);
    },
  };
}

} // namespace paratune
