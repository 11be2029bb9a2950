#include "actors/validator.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include <caf/all.hpp>

#include "actors/trial_key.hpp"
#include "actors/output_batch.hpp"
#include "actors/replay_answer.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "adapters/process/child_process.hpp"
#include "adapters/process/gpu_monitor_line.hpp"
#include "adapters/relay/relayed_trial.hpp"
#include "adapters/slurm/slurm_cli_client.hpp"
#include "adapters/slurm/slurm_job_user.hpp"
#include "adapters/slurm/slurm_job_watch.hpp"
#include "adapters/slurm/slurm_trial_dir.hpp"
#include "adapters/slurm/slurmrestd_client.hpp"
#include "core/last_lines.hpp"
#include "core/launch/batch_script.hpp"
#include "core/secret_env.hpp"
#include "core/telemetry/slurm_hostlist.hpp"
#include "core/secret_redactor.hpp"
#include "core/trial_environment.hpp"
#include "core/trial_scoring.hpp"
#include "core/tuning/early_stop.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

/// One trial in flight: its process, its parser and what was seen so far.
struct running_trial {
  std::string session;
  wire::proposal proposal;
  double peak_tflops = 0;        ///< device peak, for MFU
  int world_size = 1;
  double memory_limit_mib = 0;
  megatron_log_parser parser;
  std::vector<iteration_sample> samples;
  double gpu_util_sum = 0;
  int gpu_util_n = 0;
  double monitor_peak_mib = 0;
  std::deque<std::string> tail;  ///< last lines, for the failure analyst
  /// Hides the session's secrets in every line before anything keeps it.
  secret_redactor redactor;
  std::optional<output_batch> output;  ///< lines for "output.<sid>.<n>" (the telemetry agent)
  std::unique_ptr<trial_process> process;  ///< a child process or a Slurm job
  std::optional<early_stopper> stopper;  ///< when the job asked for early stopping
  stop_decision stop;                    ///< set once the stopper ended it
  size_t errors_seen = 0;
  int warmup = 2;                        ///< iterations never scored
  int64_t started_at_ms = 0;             ///< Unix time
  std::chrono::steady_clock::time_point started, last_line;
  wire::trial_job job;                   ///< where it runs, once recorded
};

namespace {

constexpr size_t tail_lines = 40;
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

/// The program a process runs, from /proc; empty when it is gone.
std::string program_of(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string argv0;
  std::getline(in, argv0, '\0');
  return argv0;
}

/// Ends the process group a dead daemon's trial left behind, when its
/// leader still runs the trial's program (a pid reused since by another
/// program is left alone). Returns what it did, in words.
std::string end_orphan(const wire::trial_job& job) {
  if (job.pid <= 0)
    return "no process was recorded";
  if (program_of(job.pid) != job.argv0)
    return "its process " + std::to_string(job.pid) + " had already ended";
  kill(pid_t(-job.pid), SIGKILL);
  kill(pid_t(job.pid), SIGKILL);
  return "its process group " + std::to_string(job.pid) + " was ended";
}

double peak_memory(const running_trial& t) {
  if (t.monitor_peak_mib > 0)
    return t.monitor_peak_mib;
  double peak = 0;
  for (const auto& m : t.parser.log().memory)
    peak = std::max(peak, m.max_reserved_mib);
  return peak;
}

failure_kind failure_kind_of(log_error_kind k) {
  switch (k) {
    case log_error_kind::oom: return failure_kind::oom;
    case log_error_kind::nccl_timeout: return failure_kind::nccl_timeout;
    case log_error_kind::config_invalid: return failure_kind::config_invalid;
    case log_error_kind::nan: return failure_kind::nan;
    case log_error_kind::other: return failure_kind::other;
  }
  return failure_kind::other;
}

// What the trial's iterations measured.
void fill_measurements(const running_trial& t, const trial_score& score, wire::trial_result& r) {
  r.tflops_per_gpu = score.tflops_per_gpu;
  r.iteration_ms = score.iteration_ms;
  r.mfu = t.peak_tflops > 0 ? score.tflops_per_gpu / t.peak_tflops : 0;
  r.peak_memory_mib = peak_memory(t);
  r.gpu_util_pct = t.gpu_util_n > 0 ? t.gpu_util_sum / t.gpu_util_n : 0;
  r.iterations_scored = score.scored;
}

// A trial the early stopper ended: measured over the iterations it ran
// (stopped), or failed when a failure line or a hang ended it.
void apply_stop(const running_trial& t, const trial_score& score, wire::trial_result& r) {
  r.stop = t.stop.reason;
  r.reason = t.stop.text;
  if (t.stop.reason == stop_reason::failure || t.stop.reason == stop_reason::hang) {
    r.status = trial_status::failed;
    if (t.stop.reason == stop_reason::hang)
      r.error_kind = failure_kind::nccl_timeout; // "NCCL timeout or hang"
    if (r.error_message.empty())
      r.error_message = t.stop.text;
    return;
  }
  r.status = trial_status::stopped;
  if (score.scored > 0 && t.stop.reason != stop_reason::cancelled)
    fill_measurements(t, score, r);
}

/// Exit statuses that mean the command never ran: the scheduler refused or
/// lost the job (125, slurm_job_watch), the command could not be executed
/// (126) or found (127, also an exec that failed).
bool never_ran(int exit_code) { return exit_code >= 125 && exit_code <= 127; }

/// What a job that never trained said last, whole lines: bash's "No such
/// file or directory", a cd that failed, slurmstepd's or the watch's account
/// of a job Slurm could not start. Four lines or 400 bytes hold such a reason
/// and what led to it (core/clipped_lines makes them one line for the user).
std::string job_own_words(const running_trial& t) { return last_lines(t.tail, 4, 400); }

/// A trial that printed no iteration and ended as a launcher does when it
/// could not start the job: a launcher error, in the launcher's words (the
/// last lines, which name the scheduler's or the exec's reason).
void classify_launch_failure(const running_trial& t, int exit_code, wire::trial_result& r) {
  if (!t.parser.log().errors.empty())
    return;
  if (!t.tail.empty() && t.tail.back().rfind("slurm: ", 0) == 0)
    r.error_message = t.tail.back(); // the scheduler's account of the end: NODE_FAIL, ...
  if (!t.samples.empty() || !never_ran(exit_code))
    return;
  r.error_kind = failure_kind::launcher_error;
  if (!t.tail.empty())
    r.error_message = job_own_words(t);
}

wire::trial_result result_of(const running_trial& t, int exit_code) {
  wire::trial_result r;
  r.trial = t.proposal.trial;
  r.retry_of = t.proposal.retry_of;
  r.started_at_ms = t.started_at_ms;
  r.queued_ms = t.process ? t.process->queued_ms() : 0;
  r.pool = t.proposal.pool;
  r.ended_at_ms = wall_clock_ms();
  double ms = 0;
  for (const auto& s : t.samples)
    ms += s.elapsed_ms;
  r.gpu_hours = ms / 3.6e6 * t.world_size;
  r.config = t.proposal.config;
  r.exit_code = exit_code;
  r.memory_limit_mib = t.memory_limit_mib;
  r.log_tail.assign(t.tail.begin(), t.tail.end());
  r.iterations_logged = int(t.samples.size());
  const auto& log = t.parser.log();
  const auto score = score_iterations(t.samples, t.warmup);
  if (!log.errors.empty()) {
    r.error_kind = failure_kind_of(log.errors.front().kind);
    r.error_message = log.errors.front().message;
  }
  classify_launch_failure(t, exit_code, r);
  if (t.stop) {
    apply_stop(t, score, r);
    return r;
  }
  if (exit_code == 0 && log.errors.empty() && score.scored > 0) {
    r.status = trial_status::succeeded;
    fill_measurements(t, score, r);
  } else {
    r.status = trial_status::failed;
    // A command that ended before its first iteration said why on its
    // stderr (a bad option, a missing module, a cd that failed): the status
    // alone would hide it.
    if (r.error_message.empty())
      r.error_message = exit_code == 0 ? "no iteration could be scored"
                        : t.samples.empty() && !t.tail.empty()
                          ? "exit status " + std::to_string(exit_code) + ": " + job_own_words(t)
                          : "exit status " + std::to_string(exit_code);
    r.reason = r.error_message;
  }
  return r;
}

/// The variables of this process no trial of the session sees: the
/// session's (names only are stored), and SLURM_JWT for sessions stored
/// before they were.
std::vector<std::string> trial_secret_names(const wire::session_opened& s) {
  std::set<std::string> names(s.secret_env.begin(), s.secret_env.end());
  names.insert(always_secret_env().begin(), always_secret_env().end());
  return {names.begin(), names.end()};
}

/// A trial's whole environment (core/trial_environment.hpp): chosen from
/// this process's, never inherited whole, for a child process and a Slurm
/// job alike.
env_list trial_env_of(const wire::session_opened& s, const wire::pool_wire* pool,
                      const wire::proposal& p) {
  const auto config = wire::from_wire(p.config);
  trial_env_sources from;
  from.inherited = environment_of_this_process();
  if (pool)
    from.pool = pool->env;
  from.job = s.env;
  const bool simulated = !pool || pool->kind == pool_kind::simulated;
  from.framework = framework_environment(config.tp, config.cp, simulated, from.inherited);
  const auto secrets = trial_secret_names(s);
  from.secrets.insert(secrets.begin(), secrets.end());
  return trial_environment(from);
}

/// The pool's Slurm interface: the client commands (SLURM_CONF of this
/// process, else /etc/slurm), or slurmrestd with a token where it needs one.
std::unique_ptr<slurm_client> client_for(const wire::pool_wire& pool) {
  if (!pool.via_rest)
    return std::make_unique<slurm_cli_client>();
  slurmrestd_options o;
  o.address = pool.url;
  o.user_name = pool.user;
  const auto token = !pool.token_env.empty()    ? slurm_token_from_env(pool.token_env)
                     : !pool.token_file.empty() ? slurm_token_from_file(pool.token_file)
                                                : slurm_result<std::string>(std::string());
  if (!token)
    throw std::runtime_error("pool '" + pool.name + "': " + token.error().message);
  o.token = token.value();
  return std::make_unique<slurmrestd_client>(o);
}

/// A Slurm trial's directory, made for the user its job runs as (who must
/// write its output file there) before the job is submitted.
void make_job_dir(const wire::pool_wire& pool, const std::string& dir) {
  const auto user = slurm_job_user({pool.via_rest, pool.url, pool.user});
  if (!user)
    throw std::runtime_error("pool '" + pool.name + "': " + user.error().message);
  try {
    make_slurm_trial_dir(dir, user.value());
  } catch (const std::exception& e) {
    throw std::runtime_error("pool '" + pool.name + "': " + e.what());
  }
}

/// How the batch script starts a pool's command: its tasks, and for a relay
/// pool the relay's own words (up to its "--", strategy_generator's
/// relayed_command), which run once around them.
batch_layout layout_of(const wire::pool_wire& pool, const wire::session_opened& s,
                       const wire::proposal& p) {
  batch_layout l;
  l.tasks = pool.tasks;
  l.gpus_per_node = pool.gpus_per_node > 0 ? pool.gpus_per_node : s.cluster.devices_per_node;
  if (pool.relay) {
    const auto dashes = std::find(p.argv.begin(), p.argv.end(), "--");
    if (dashes != p.argv.end())
      l.wrapper_words = size_t(dashes - p.argv.begin()) + 1;
  }
  return l;
}

/// One trial as a batch job: the rendered command run by a script in the
/// trial's directory, its output beside it, with what the pool asks of the
/// scheduler. The job's time limit is the pool's `time:` or the early-stop
/// policy's wall-clock limit, whichever is shorter.
slurm_job_request request_for(const wire::pool_wire& pool, const wire::session_opened& s,
                              const wire::proposal& p, const std::string& session) {
  slurm_job_request r;
  r.name = "paratune-" + session + "-" + std::to_string(p.trial);
  r.partition = pool.partition;
  r.nodes = s.nodes;
  r.gpus_per_node = pool.gpus_per_node;
  r.working_directory = p.workdir;
  r.output_path = p.workdir + "/slurm-%j.out";
  r.environment = trial_env_of(s, &pool, p);
  r.time_limit_minutes = pool.time_limit_minutes;
  if (s.early_stop.enabled) {
    const int trial_limit = int(s.early_stop.wall_s / 60) + 1;
    if (r.time_limit_minutes == 0 || trial_limit < r.time_limit_minutes)
      r.time_limit_minutes = trial_limit;
  }
  r.account = pool.account;
  r.qos = pool.qos;
  r.constraint = pool.constraint;
  r.gres = pool.gres;
  r.exclusive = pool.exclusive;
  const auto layout = layout_of(pool, s, p);
  if (layout.tasks != slurm_tasks::one)
    r.tasks_per_node = layout.tasks == slurm_tasks::per_gpu ? layout.gpus_per_node : 1;
  r.script = batch_script(p.argv, p.workdir, {}, layout);
  return r;
}

} // namespace

std::unique_ptr<trial_process> validator_state::launch_slurm_job(const wire::pool_wire& pool,
                                                                 const wire::session_opened& s,
                                                                 const wire::proposal& p,
                                                                 const std::string& key) {
  auto [on_line, on_exit] = output_handlers(key);
  const auto& session = running.at(key)->session;
  auto request = request_for(pool, s, p, session);
  // The job's id reaches the pool as soon as Slurm accepts it: a daemon
  // that restarts attaches to it instead of submitting it again.
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(self);
  auto submitted = [weak, key](slurm_job_id id, const std::string& output_file) {
    if (auto me = caf::actor_cast<caf::actor>(weak))
      caf::anon_send(me, submitted_atom_v, key, int64_t(id), output_file);
  };
  const auto placed = placed_handler(key);
  constexpr auto poll = std::chrono::milliseconds(500);
  if (!pool.relay)
    return std::make_unique<slurm_job_watch>(client_for(pool), std::move(request),
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
    return std::make_unique<slurm_job_watch>(client_for(pool), std::move(request), on_line,
                                             std::move(ended), poll, submitted, placed);
  };
  return std::make_unique<relayed_trial>(std::move(o), on_line, std::move(on_exit), job);
}

std::unique_ptr<trial_process> validator_state::attach_slurm_job(const wire::pool_wire& pool,
                                                                 const wire::session_opened& s,
                                                                 const wire::proposal& p,
                                                                 const wire::trial_job& job,
                                                                 const std::string& key) {
  auto [on_line, on_exit] = output_handlers(key);
  const auto id = slurm_job_id(job.slurm_job_id);
  const auto placed = placed_handler(key);
  constexpr auto poll = std::chrono::milliseconds(500);
  if (!pool.relay)
    return slurm_job_watch::attach(client_for(pool), id, job.output_path, std::move(on_line),
                                   std::move(on_exit), poll, placed);
  // The relay goes on publishing to the bus (a daemon's fixed address); the
  // lines it published before are fetched again from its buffer or its log.
  relay_receiver_options o;
  o.bus_subscribe = s.relay_subscribe;
  o.topic = topics::relay(running.at(key)->session, p.trial);
  o.log_path = p.workdir + "/relay.log";
  auto watch = [&](relayed_trial::exit_handler ended) -> std::unique_ptr<trial_process> {
    return slurm_job_watch::attach(client_for(pool), id, job.output_path, on_line,
                                   std::move(ended), poll, placed);
  };
  return std::make_unique<relayed_trial>(std::move(o), on_line, std::move(on_exit), watch);
}

validator_state::validator_state(caf::event_based_actor* self) : agent_state(self) {
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
    if (s.state == session_state::cancelled)
      stop_session(e.session, "the session was cancelled");
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
  if (!ledger.job() || running.count(key) || resuming.count(key))
    return;
  const auto& job = *ledger.job();
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
  // further (tail, pool, bus, parser's error texts).
  const std::string line = t.redactor.redact(raw);
  t.last_line = std::chrono::steady_clock::now();
  t.tail.push_back(line);
  if (t.tail.size() > tail_lines)
    t.tail.pop_front();
  if (t.output->add(line))
    publish_output(t);
  if (auto g = parse_gpu_monitor_line(line)) {
    t.gpu_util_sum += g->utilization_pct;
    ++t.gpu_util_n;
    t.monitor_peak_mib = std::max(t.monitor_peak_mib, g->memory_used_mib);
    return;
  }
  const size_t before = t.parser.log().iterations.size();
  t.parser.feed(line);
  t.parser.feed("\n");
  const auto& its = t.parser.log().iterations;
  for (size_t i = before; i < its.size(); ++i) {
    const auto& it = its[i];
    const double tflops = it.tflops_per_gpu.value_or(0);
    t.samples.push_back({it.iteration, it.elapsed_ms, tflops});
    wire::telemetry tm{t.proposal.trial, it.iteration, it.elapsed_ms, tflops};
    publish_only(topics::telemetry(t.session, t.proposal.trial),
                 wire::make_envelope(t.session, t.proposal.trial, tm));
    if (t.stopper && !t.stop)
      if (auto d = t.stopper->on_iteration(t.samples.back()))
        end_early(key, std::move(d));
  }
  const auto& errors = t.parser.log().errors;
  if (t.stopper && !t.stop && errors.size() > t.errors_seen)
    end_early(key, t.stopper->on_failure(errors[t.errors_seen].message));
  t.errors_seen = errors.size();
}

void validator_state::publish_output(running_trial& t) {
  if (auto batch = t.output->take())
    publish_only(topics::output(t.session, t.proposal.trial),
                 wire::make_envelope(t.session, t.proposal.trial, *batch));
}

void validator_state::end_early(const std::string& key, stop_decision d) {
  auto it = running.find(key);
  if (it == running.end() || it->second->stop)
    return;
  auto& t = *it->second;
  t.stop = std::move(d);
  if (t.process)
    t.process->terminate(2000); // the exit arrives as exited_atom and records the result
}

void validator_state::check_clocks() {
  std::vector<std::pair<std::string, stop_decision>> due;
  for (auto& [key, t] : running)
    if (t->stopper && !t->stop)
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
  t->proposal = p;
  t->output.emplace(p.trial);
  t->redactor = secret_redactor(values_in_this_process(trial_secret_names(opened)));
  precision prec = precision::bf16;
  parse_precision(opened.precision, prec);
  t->peak_tflops = wire::from_wire(opened.cluster).device.peak_tflops(prec);
  t->memory_limit_mib = opened.cluster.hbm_gib * 1024;
  t->world_size = std::max(1, opened.world_size);
  const auto key = trial_key_of(session, p.trial);
  t->started_at_ms = wall_clock_ms();
  t->started = t->last_line = std::chrono::steady_clock::now();
  if (opened.early_stop.enabled) {
    t->stopper.emplace(policy_of(opened.early_stop), incumbent);
    t->warmup = opened.early_stop.warmup;
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
        make_job_dir(*pool, p.workdir);
      t->process = launch_slurm_job(*pool, opened, p, key);
    } else {
      if (!p.workdir.empty())
        std::filesystem::create_directories(p.workdir); // the template's {workdir}
      auto child = launch_child(p.argv, key, trial_env_of(opened, pool, p));
      wire::trial_job job;
      job.trial = p.trial;
      job.pid = child->pid();
      job.argv0 = p.argv.front();
      record_job(session, p.trial, job);
      t->process = std::move(child);
    }
  } catch (const std::exception& e) {
    t->tail.push_back(t->redactor.redact(std::string("launch failed: ") + e.what()));
    self->send(self, exited_atom_v, key, 127);
  }
}

void validator_state::attach(const std::string& session, const wire::proposal& p,
                             const wire::session_opened& opened, const wire::trial_job& job,
                             int64_t started_at_ms, incumbent_rate incumbent) {
  auto t = track(session, p, opened, incumbent);
  t->started_at_ms = started_at_ms;
  t->job = job;
  const auto key = trial_key_of(session, p.trial);
  try {
    t->process = attach_slurm_job(*wire::pool_named(opened, p.pool), opened, p, job, key);
  } catch (const std::exception& e) {
    t->tail.push_back(std::string("cannot attach to Slurm job ") + std::to_string(job.slurm_job_id)
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
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(self);
  return [weak, key](const std::string& nodes) {
    if (auto me = caf::actor_cast<caf::actor>(weak))
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
    spdlog::warn("validator: session {}: trial {}: {}", t.session, t.proposal.trial, e->message);
    return;
  }
  auto job = t.job;
  job.trial = t.proposal.trial;
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
  t->parser.finish();
  publish_output(*t); // every line before the result
  auto r = result_of(*t, exit_code);
  if (const auto* relayed = dynamic_cast<const relayed_trial*>(t->process.get())) {
    const auto c = relayed->counts();
    r.relay = {true, c.delivered, c.gaps, c.from_relay, c.from_log, c.lost, c.bad};
  }
  store_and_publish(topics::trial_state(t->session, r.trial),
                    wire::make_envelope(t->session, r.trial, r));
}

caf::behavior validator(caf::stateful_actor<validator_state>* self, agent_deps deps,
                        validator_options opts) {
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
      job.trial = it->second->proposal.trial;
      job.slurm_job_id = job_id;
      job.output_path = output;
      self->state.record_job(it->second->session, job.trial, job);
    },
  };
}

} // namespace paratune
