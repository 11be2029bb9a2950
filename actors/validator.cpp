#include "actors/validator.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include <caf/all.hpp>

#include "actors/trial_key.hpp"
#include "actors/output_batch.hpp"
#include "actors/replay_answer.hpp"
#include "adapters/process/child_process.hpp"
#include "adapters/process/gpu_monitor_line.hpp"
#include "adapters/process/process_environment.hpp"
#include "adapters/relay/relayed_trial.hpp"
#include "adapters/slurm/slurm_job_watch.hpp"
#include "adapters/trial_launch/orphan_process.hpp"
#include "adapters/trial_launch/slurm_trial_job.hpp"
#include "adapters/trial_launch/trial_env.hpp"
#include "core/telemetry/slurm_hostlist.hpp"
#include "core/model_flops_utilization.hpp"
#include "core/secret_redactor.hpp"
#include "frameworks/trial_output.hpp"
#include "core/tuning/early_stop.hpp"
#include "decisions/trial_scoring.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

/// One trial in flight: its process, its parser, its clocks, and the
/// record of what its run showed (decisions/trial_scoring), which scores it.
struct running_trial {
  std::string session;
  trial_run_record run;
  /// Its output as the session's framework reads it, every line with the
  /// session's secrets hidden before anything keeps it.
  std::optional<trial_output> out;
  std::optional<output_batch> output;  ///< lines for "output.<sid>.<n>" (the telemetry agent)
  std::unique_ptr<trial_process> process;  ///< a child process or a Slurm job
  std::optional<early_stopper> stopper;  ///< when the job asked for early stopping
  std::chrono::steady_clock::time_point started, last_line;
  wire::trial_job job;                   ///< where it runs, once recorded

  const wire::proposal& proposal() const { return run.proposal; }
};

namespace {

/// How often running trials' clocks are checked (hang, wall-clock limit).
constexpr auto clock_period = std::chrono::milliseconds(500);

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

early_stop_policy policy_of(const wire::early_stop_wire& w) {
  return {w.warmup, w.stable_after, w.tolerance, w.rung, w.hang_s, w.wall_s};
}

/// The best measured run of the session so far: what a new trial must beat.
incumbent_rate incumbent_of(const session_ledger& ledger) {
  const auto& best = ledger.incumbent();
  return {best.tflops_per_gpu, best.iteration_ms};
}

/// The run's record with what only its output held: its last lines, the
/// log's first failure and its largest reserved memory.
trial_run_record finished_run(const running_trial& t) {
  auto run = t.run;
  run.tail = t.out->tail();
  run.failure = t.out->reader().first_failure();
  run.log_peak_mib = t.out->reader().peak_memory_mib();
  run.score = t.out->reader().score(run.warmup);
  run.queued_ms = t.process ? t.process->queued_ms() : 0;
  return run;
}

} // namespace

std::unique_ptr<trial_process> validator_state::launch_slurm_job(const wire::pool_wire& pool,
                                                                 const wire::session_opened& s,
                                                                 const wire::proposal& p,
                                                                 const std::string& key) {
  auto [on_line, on_exit] = output_handlers(self, key);
  const auto& session = running.at(key)->session;
  auto request = slurm_request_for(pool, s, p, session);
  // The job's id reaches the pool as soon as Slurm accepts it: a daemon
  // that restarts attaches to it instead of submitting it again.
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(validator_actor{self});
  auto submitted = [weak, key](slurm_job_id id, const std::string& output_file) {
    if (auto me = caf::actor_cast<validator_actor>(weak))
      caf::anon_send(me, submitted_atom_v, key, int64_t(id), output_file);
  };
  const auto placed = placed_handler(key);
  constexpr auto poll = std::chrono::milliseconds(500);
  if (!pool.relay)
    return std::make_unique<slurm_job_watch>(slurm_client_for(pool), std::move(request),
                                             std::move(on_line), std::move(on_exit), poll,
                                             submitted, placed);
  // The lines come from the trial's relay over the bus; the job's own output
  // file holds only what the relay itself says (a bad option, a lost bus).
  // The relay signs them with the trial's key, which it takes from its
  // environment: never its argv, which every user of the node can read.
  if (relay_master)
    request.environment.emplace_back(
      relay_key_env, to_hex(relay_trial_key(*relay_master, session, p.trial)));
  relay_receiver_options o;
  o.bus_subscribe = s.relay_subscribe;
  o.topic = topics::relay(session, p.trial);
  o.log_path = p.workdir + "/relay.log";
  auto job = [&](relayed_trial::exit_handler ended) {
    return std::make_unique<slurm_job_watch>(slurm_client_for(pool), std::move(request), on_line,
                                             std::move(ended), poll, submitted, placed);
  };
  return std::make_unique<relayed_trial>(std::move(o), on_line, std::move(on_exit), job);
}

std::unique_ptr<trial_process> validator_state::attach_slurm_job(const wire::pool_wire& pool,
                                                                 const wire::session_opened& s,
                                                                 const wire::proposal& p,
                                                                 const wire::trial_job& job,
                                                                 const std::string& key) {
  auto [on_line, on_exit] = output_handlers(self, key);
  const auto id = slurm_job_id(job.slurm_job_id);
  const auto placed = placed_handler(key);
  constexpr auto poll = std::chrono::milliseconds(500);
  if (!pool.relay)
    return slurm_job_watch::attach(slurm_client_for(pool), id, job.output_path, std::move(on_line),
                                   std::move(on_exit), poll, placed);
  // The relay goes on publishing to the bus (a daemon's fixed address); the
  // lines it published before are fetched again from its buffer or its log.
  relay_receiver_options o;
  o.bus_subscribe = s.relay_subscribe;
  o.topic = topics::relay(running.at(key)->session, p.trial);
  o.log_path = p.workdir + "/relay.log";
  auto watch = [&](relayed_trial::exit_handler ended) -> std::unique_ptr<trial_process> {
    return slurm_job_watch::attach(slurm_client_for(pool), id, job.output_path, on_line,
                                   std::move(ended), poll, placed);
  };
  return std::make_unique<relayed_trial>(std::move(o), on_line, std::move(on_exit), watch);
}

validator_state::validator_state(validator_actor::pointer self) : basic_agent_state(self) {
  on<wire::proposal>([this](const wire::envelope& e, wire::proposal p) {
    const auto session = e.session;
    // The session converged: what runs can no longer matter. As for any
    // proposal, only the one the pool holds at that number counts.
    if (p.converged)
      return with_ledger(session, [this, session, seq = e.seq,
                                   request = p.request](const session_ledger& ledger) {
        for (const auto& stored : ledger.proposals_for(request))
          if (stored.seq == seq && wire::body_of<wire::proposal>(stored).converged)
            return stop_session(session,
                                "the session converged: this trial can no longer matter");
        spdlog::warn("validator: session {}: a converged answer (record {}) that the session's "
                     "pool does not hold: ignored",
                     session, seq);
      });
    // A replay pool's proposal has no command: consider() answers it.
    if (p.exhausted || p.trial <= 0 || running.count(trial_key_of(session, p.trial)))
      return;
    with_ledger(session, [this, session, seq = e.seq, trial = p.trial](
                           const session_ledger& ledger) {
      // What runs is the proposal the session's own generator stored at
      // `seq`: the bus only says that one exists. None for a record the
      // pool does not hold (forged, or from another process), or once the
      // session has ended.
      const auto stored = ledger.proposal_at(seq);
      if (!stored || stored->trial != trial) {
        spdlog::warn("validator: session {}: a proposal for trial {} (record {}) that the "
                     "session's pool does not hold, or for a session that has ended: ignored",
                     session, trial, seq);
        return;
      }
      consider(session, *stored, ledger);
    });
  });
  on<wire::session_status>([this](const wire::envelope& e, const wire::session_status& s) {
    // A cancelled or failed session: what runs can no longer matter.
    if (s.state == session_state::cancelled)
      stop_session(e.session, "the session was cancelled");
    else if (s.state == session_state::failed)
      stop_session(e.session, "the session failed: " + s.text);
  });
}

void validator_state::stop_session(const std::string& session, const std::string& why) {
  std::vector<std::string> keys;
  for (auto& [key, t] : running)
    if (t->session == session)
      keys.push_back(key);
  for (const auto& key : keys)
    end_early(key, {stop_reason::cancelled, why}); // its exit records the result
}

validator_state::~validator_state() {
  for (auto& [_, t] : running)
    if (t->process) {
      if (keep_jobs)
        t->process->detach(); // a Slurm job goes on; the next daemon attaches to it
      else
        t->process->terminate(500);
    }
}

void validator_state::consider(const std::string& session, const wire::proposal& p,
                               const session_ledger& ledger) {
  const auto* past = ledger.trial(p.trial);
  if (past && past->ended())
    return; // already ran (a republished proposal)
  const auto key = trial_key_of(session, p.trial);
  // A GPU job, or a TPU session's as the runner reads it: one runner for both.
  if (!ledger.runner_job() || running.count(key) || resuming.count(key))
    return;
  const auto& job = *ledger.runner_job();
  if (!framework_named(job.framework)) {
    // Records of a paratune that knows a framework this one does not.
    wire::trial_result r;
    r.trial = p.trial;
    r.config = p.config;
    r.pool = p.pool;
    r.error_kind = failure_kind::launcher_error;
    r.error_message = r.reason = "the session's framework '" + job.framework
                                 + "' is not one this paratune runs";
    return store_and_publish(topics::trial_state(session, p.trial),
                             wire::make_envelope(session, p.trial, r));
  }
  const auto* started = past && past->started ? &*past->started : nullptr;
  const auto& placed = past ? past->job : std::nullopt;
  const auto* pool = wire::pool_named(job, p.pool);
  if (pool && pool->kind == pool_kind::replay)
    return answer_from_table(session, p, job, *pool, started != nullptr);
  if (p.argv.empty())
    return;
  if (!started)
    return launch(session, p, job, incumbent_of(ledger));
  // Started by a validator that is gone (a daemon killed or stopped): a
  // Slurm job still runs and is attached to; a local run died with it and
  // runs again under the same number.
  if (pool && pool->kind == pool_kind::slurm && placed && placed->slurm_job_id > 0)
    return attach(session, p, job, *placed, started->ts_ms, incumbent_of(ledger));
  wire::trial_interrupted note{p.trial, "its run was lost with the daemon that watched it ("
                                          + (placed ? end_orphan(*placed)
                                                    : std::string("no process was recorded"))
                                          + "); it runs again"};
  resuming.insert(key); // a proposal repeated meanwhile is not interrupted twice
  store(wire::make_envelope(session, p.trial, note),
        [this, key, session, p, job, incumbent = incumbent_of(ledger)](uint64_t) {
          resuming.erase(key);
          if (!running.count(key))
            launch(session, p, job, incumbent);
        });
}

void validator_state::answer_from_table(const std::string& session, const wire::proposal& p,
                                        const wire::session_opened& job,
                                        const wire::pool_wire& pool, bool started) {
  auto r = replay_answer(pool, p, job, wall_clock_ms());
  const auto topic = topics::trial_state(session, p.trial);
  // A refused configuration never started: it has only its skipped result.
  if (!started && r.status != trial_status::skipped)
    store_and_publish(topic, wire::make_envelope(session, p.trial,
                                                 wire::trial_started{p.trial, p.config, {}, p.pool}));
  store_and_publish(topic, wire::make_envelope(session, p.trial, r));
}

void validator_state::on_line(const std::string& key, const std::string& raw) {
  auto it = running.find(key);
  if (it == running.end())
    return;
  auto& t = *it->second;
  // Where a trial's output enters paratune: a secret it printed goes no
  // further (tail, pool, bus, the reader's error texts).
  const std::string line = t.out->keep(raw);
  t.last_line = std::chrono::steady_clock::now();
  if (t.output->add(line))
    publish_output(t);
  if (auto g = parse_gpu_monitor_line(line)) {
    t.run.gpu_util_sum += g->utilization_pct;
    ++t.run.gpu_util_n;
    t.run.monitor_peak_mib = std::max(t.run.monitor_peak_mib, g->memory_used_mib);
    return;
  }
  const auto read = t.out->read(line);
  for (const auto& sample : read.iterations) {
    t.run.samples.push_back(sample);
    wire::telemetry tm{t.proposal().trial, sample.iteration, sample.elapsed_ms,
                       sample.tflops_per_gpu};
    publish_only(topics::telemetry(t.session, t.proposal().trial),
                 wire::make_envelope(t.session, t.proposal().trial, tm));
    if (t.stopper && !t.run.stop)
      if (auto d = t.stopper->on_iteration(sample))
        end_early(key, std::move(d));
  }
  if (t.stopper && !t.run.stop && read.new_failure)
    end_early(key, t.stopper->on_failure(read.new_failure->message));
}

void validator_state::publish_output(running_trial& t) {
  if (auto batch = t.output->take())
    publish_only(topics::output(t.session, t.proposal().trial),
                 wire::make_envelope(t.session, t.proposal().trial, *batch));
}

void validator_state::end_early(const std::string& key, stop_decision d) {
  auto it = running.find(key);
  if (it == running.end() || it->second->run.stop)
    return;
  auto& t = *it->second;
  t.run.stop = std::move(d);
  if (t.process)
    t.process->terminate(2000); // the exit arrives as exited_atom and records the result
}

void validator_state::check_clocks() {
  std::vector<std::pair<std::string, stop_decision>> due;
  for (auto& [key, t] : running)
    if (t->stopper && !t->run.stop)
      if (auto d = t->stopper->on_clock(seconds_since(t->started), seconds_since(t->last_line)))
        due.emplace_back(key, std::move(d));
  for (auto& [key, d] : due)
    end_early(key, std::move(d));
  if (!running.empty())
    self->delayed_send(self, clock_period, tick_atom_v);
  else
    clock_running = false;
}

std::shared_ptr<running_trial> validator_state::track(const std::string& session,
                                                      const wire::proposal& p,
                                                      const wire::session_opened& opened,
                                                      incumbent_rate incumbent) {
  auto t = std::make_shared<running_trial>();
  t->session = session;
  t->run.proposal = p;
  t->output.emplace(p.trial);
  t->out.emplace(*framework_named(opened.framework),
                 secret_redactor(values_in_this_process(trial_secret_names(opened))));
  // The device's peak as mfu_peak_tflops() takes it; 0 (no MFU) for a
  // session stored without its cluster.
  t->run.peak_tflops = opened.cluster.peak_tflops_16;
  t->run.memory_limit_mib = opened.cluster.hbm_gib * 1024;
  t->run.world_size = std::max(1, opened.world_size);
  const auto key = trial_key_of(session, p.trial);
  t->run.started_at_ms = wall_clock_ms();
  t->started = t->last_line = std::chrono::steady_clock::now();
  if (opened.early_stop.enabled) {
    t->stopper.emplace(policy_of(opened.early_stop), incumbent);
    t->run.warmup = opened.early_stop.warmup;
  }
  running[key] = t;
  if (t->stopper && !clock_running) {
    clock_running = true;
    self->delayed_send(self, clock_period, tick_atom_v);
  }
  return t;
}

void validator_state::launch(const std::string& session, const wire::proposal& p,
                             const wire::session_opened& opened, incumbent_rate incumbent) {
  auto t = track(session, p, opened, incumbent);
  const auto key = trial_key_of(session, p.trial);
  wire::trial_started st{p.trial, p.config, p.argv, p.pool};
  store_and_publish(topics::trial_state(session, p.trial),
                    wire::make_envelope(session, p.trial, st));
  try {
    const auto* pool = wire::pool_named(opened, p.pool);
    if (pool && pool->kind == pool_kind::slurm) {
      if (!p.workdir.empty())
        make_slurm_job_dir(*pool, p.workdir);
      t->process = launch_slurm_job(*pool, opened, p, key);
    } else {
      if (!p.workdir.empty())
        std::filesystem::create_directories(p.workdir); // the template's {workdir}
      auto child = launch_child(self, p.argv, key, trial_env_of(opened, pool, p));
      wire::trial_job job;
      job.trial = p.trial;
      job.pid = child->pid();
      job.argv0 = p.argv.front();
      record_job(session, p.trial, job);
      t->process = std::move(child);
    }
  } catch (const std::exception& e) {
    t->out->keep(std::string("launch failed: ") + e.what());
    self->send(self, exited_atom_v, key, 127);
  }
}

void validator_state::attach(const std::string& session, const wire::proposal& p,
                             const wire::session_opened& opened, const wire::trial_job& job,
                             int64_t started_at_ms, incumbent_rate incumbent) {
  auto t = track(session, p, opened, incumbent);
  t->run.started_at_ms = started_at_ms;
  t->job = job;
  const auto key = trial_key_of(session, p.trial);
  try {
    t->process = attach_slurm_job(*wire::pool_named(opened, p.pool), opened, p, job, key);
  } catch (const std::exception& e) {
    t->out->keep(std::string("cannot attach to Slurm job ") + std::to_string(job.slurm_job_id)
                 + ": " + e.what());
    self->send(self, exited_atom_v, key, 125);
  }
}

void validator_state::record_job(const std::string& session, int trial, wire::trial_job job) {
  if (auto it = running.find(trial_key_of(session, trial)); it != running.end())
    it->second->job = job;
  store(wire::make_envelope(session, trial, job));
}

std::function<void(const std::string& nodes)> validator_state::placed_handler(
  const std::string& key) {
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(validator_actor{self});
  return [weak, key](const std::string& nodes) {
    if (auto me = caf::actor_cast<validator_actor>(weak))
      caf::anon_send(me, placed_atom_v, key, nodes);
  };
}

void validator_state::on_placed(const std::string& key, const std::string& nodes) {
  const auto it = running.find(key);
  if (it == running.end())
    return;
  auto& t = *it->second;
  if (!t.job.hosts.empty())
    return; // recorded before this daemon attached to the job
  // Slurm's node list is outside input: expanded with checked names, and a
  // list that is not one is logged, never scraped.
  auto hosts = expand_slurm_hostlist(nodes);
  if (const auto* e = std::get_if<hostlist_error>(&hosts)) {
    spdlog::warn("validator: session {}: trial {}: {}", t.session, t.proposal().trial, e->message);
    return;
  }
  auto job = t.job;
  job.trial = t.proposal().trial;
  job.hosts = std::move(std::get<std::vector<std::string>>(hosts));
  t.job = job;
  store_and_publish(topics::trial_state(t.session, job.trial),
                    wire::make_envelope(t.session, job.trial, job));
}

void validator_state::on_exit(const std::string& key, int exit_code) {
  auto it = running.find(key);
  if (it == running.end())
    return;
  auto t = it->second;
  running.erase(it);
  t->out->finish();
  publish_output(*t); // every line before the result
  auto r = score_trial(finished_run(*t), exit_code, wall_clock_ms());
  if (const auto* relayed = dynamic_cast<const relayed_trial*>(t->process.get())) {
    const auto c = relayed->counts();
    r.relay = {true, c.delivered, c.gaps, c.from_relay, c.from_log, c.lost, c.bad};
  }
  store_and_publish(topics::trial_state(t->session, r.trial),
                    wire::make_envelope(t->session, r.trial, r));
  if (r.status == trial_status::succeeded)
    race_new_best(t->session, {r.tflops_per_gpu, r.iteration_ms});
}

void validator_state::race_new_best(const std::string& session, incumbent_rate measured) {
  for (auto& [key, other] : running)
    if (other->session == session && other->stopper)
      other->stopper->race(measured);
}

validator_actor::behavior_type validator(validator_actor::stateful_pointer<validator_state> self,
                                         agent_deps deps, validator_options opts) {
  self->state.start(std::move(deps));
  self->state.keep_jobs = opts.keep_jobs;
  self->state.relay_master = opts.relay_master;
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      self->state.dispatch(topic, payload);
    },
    [=](line_atom, const std::string& key, const std::string& line) {
      self->state.on_line(key, line);
    },
    [=](exited_atom, const std::string& key, int code) { self->state.on_exit(key, code); },
    [=](tick_atom) { self->state.check_clocks(); },
    [=](placed_atom, const std::string& key, const std::string& nodes) {
      self->state.on_placed(key, nodes);
    },
    [=](submitted_atom, const std::string& key, int64_t job_id, const std::string& output) {
      auto it = self->state.running.find(key);
      if (it == self->state.running.end())
        return;
      wire::trial_job job;
      job.trial = it->second->proposal().trial;
      job.slurm_job_id = job_id;
      job.output_path = output;
      self->state.record_job(it->second->session, job.trial, job);
    },
  };
}

} // namespace paratune
