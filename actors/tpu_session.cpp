#include "actors/tpu_session.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "actors/bus_bridge.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "adapters/llm/chat_client.hpp"
#include "adapters/process/child_process.hpp"
#include "adapters/process/process_environment.hpp"
#include "adapters/slurm/slurm_job_watch.hpp"
#include "adapters/trial_launch/slurm_trial_job.hpp"
#include "adapters/trial_launch/trial_env.hpp"
#include "core/diagnosis/mesh_calibration_fit.hpp"
#include "ledger/session_ledger.hpp"
#include "ledger/tpu_runs.hpp"
#include "core/human_units.hpp"
#include "core/input_error.hpp"
#include "core/launch/launch_template.hpp"
#include "core/pool_placement.hpp"
#include "core/secret_env.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "core/tpu/mesh_model.hpp"
#include "core/trial_environment.hpp"
#include "core/tuning/early_stop.hpp"
#include "decisions/trial_scoring.hpp"
#include "frameworks/trial_output.hpp"
#include "messages/conversions.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "messages/ec.hpp"

namespace paratune {

/// One run between its start and its end: while MaxText's trainer runs,
/// then while its diagnosis and proposals are awaited.
struct tpu_run_in_flight {
  enum class stage { running, diagnosing };

  tpu_trial trial;
  stage at = stage::running;
  bool simulated = true;          ///< on a simulated pool: paratune-tpu-sim's own argv
  bool on_slurm = false;          ///< a batch job: left running when a daemon stops
  std::string key;                ///< "<id>.t<n>": its process's key and its records' session
  std::string dir;                ///< its folder: base_output_directory/t<n>
  std::string base;               ///< MaxText's base_output_directory
  std::unique_ptr<trial_process> process;
  /// Its output as MaxText's reader reads it, the session's secrets hidden
  /// in every line before anything keeps it.
  std::optional<trial_output> out;
  int steps = 0;                  ///< timed steps read
  double step_ms_total = 0;       ///< their times together
  std::optional<early_stopper> stopper;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_line = started;
  std::optional<wire::diagnosis> diagnosis;
  std::optional<wire::proposal_set> proposals;
  int timer = 0;                  ///< its live step timer's token
};

namespace {

constexpr int tpu_clock_token = 0;      ///< the early stopper's clock tick
constexpr auto tpu_clock_period = std::chrono::seconds(1);

// The experiment text with the trial's mesh in place of the file's.
std::string with_mesh(const std::string& yaml, const tpu_mesh& mesh) {
  YAML::Node root = YAML::Load(yaml);
  root["mesh"] = to_string(mesh);
  return YAML::Dump(root);
}

int64_t tpu_wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// A diagnosis's proposed meshes in rank order (proposals without a mesh
// are skipped), for next_mesh_trial().
std::vector<mesh_step> mesh_steps(const wire::proposal_set& set) {
  std::vector<mesh_step> out;
  for (const auto& p : set.proposals)
    if (!p.mesh.empty())
      out.push_back({parse_mesh(p.mesh), p.title, p.exploratory});
  return out;
}

wire::optimization_record improvement(const tpu_session_options& o, const tpu_trial& from,
                                      const tpu_trial& to) {
  const auto& exp = o.experiment;
  wire::optimization_record r;
  r.id = o.id + "-t" + std::to_string(to.index);
  r.title = "Tuning session " + o.id + ": " + describe_mesh_change(from.mesh, to.mesh);
  r.platform = "tpu";
  r.model = exp.model.name;
  r.params_billion = exp.model.parameters() / 1e9;
  r.hardware = exp.cluster.name;
  r.devices = exp.slice.chips();
  r.bottleneck = to.bottleneck;
  r.before = to_string(from.mesh);
  r.after = to_string(to.mesh);
  r.speedup = from.step_ms / to.step_ms;
  r.impact = "step " + human_duration(from.step_ms) + " -> " + human_duration(to.step_ms)
             + " (simulated)";
  r.source = "paratune tune, session " + o.id;
  return r;
}

wire::tpu_trial_row tpu_row_of(const tpu_trial& t, const tpu_mesh& job_mesh) {
  return {t.index,    to_string(t.mesh),  t.step_ms,       t.error,     t.bottleneck,
          t.next,     t.pool,             t.stopped,       t.retry_of,  t.started_ms,
          t.ended_ms, t.mesh == job_mesh, t.launch_failed, t.transient, t.mfu,
          t.chip_hours};
}

tpu_trial tpu_trial_of(const wire::tpu_trial_row& r) {
  return {r.trial,    parse_mesh(r.mesh), r.step_time_ms, r.error,     r.bottleneck,
          r.next,     r.pool,             r.stopped,      r.retry_of,  r.started_ms,
          r.ended_ms, r.launch_failed,    r.transient,    r.mfu,       r.chip_hours};
}

wire::tpu_session_end end_of(session_state state, const std::vector<tpu_trial>& trials,
                             int best, const tpu_mesh& job_mesh) {
  wire::tpu_session_end end;
  end.state = state;
  end.job_mesh = to_string(job_mesh);
  for (const auto& t : trials)
    end.trials.push_back(tpu_row_of(t, job_mesh));
  // In trial order; several run at once, so they end in another.
  std::sort(end.trials.begin(), end.trials.end(),
            [](const auto& a, const auto& b) { return a.trial < b.trial; });
  if (best >= 0)
    end.best_trial = trials[best].index;
  return end;
}

/// MaxText, as frameworks/maxtext registers it.
const framework& maxtext_framework() {
  const auto* f = framework_named("maxtext");
  if (!f)
    throw std::logic_error("the MaxText framework is not registered");
  return *f;
}

/// A run's environment, chosen where a GPU trial's is (trial_env_for): the
/// base variables, the pool's and the experiment's `env:`, MaxText's own;
/// never a secret.
env_list tpu_run_environment(const tpu_session_options& o, const wire::pool_wire& pool) {
  trial_env_request r;
  r.fw = &maxtext_framework();
  r.pool_env = pool.env;
  r.job_env = o.env;
  r.secrets = trial_secret_names(o.secret_env);
  r.simulated = pool.kind == pool_kind::simulated;
  return trial_env_for(r);
}

} // namespace

void apply_tuning(tpu_session_options& o, const tpu_tuning_settings& tuning, int trials) {
  o.budget = trials > 0 ? trials : tuning.trials;
  o.steps = tuning.steps;
  for (const auto& p : tuning.pools)
    o.pools.push_back(wire::to_wire(p));
  o.early_stop = tuning.early_stop;
  o.env = tuning.env;
  o.secret_env = tuning.secret_env;
  o.time_scale = tuning.time_scale;
  o.failure_rate = tuning.failure_rate;
  set_diagnosis_reasoner(o, tuning.reasoner);
}

void set_diagnosis_reasoner(tpu_session_options& o, const reasoner_settings& reasoner) {
  if (reasoner.mode == reasoner_mode::builtin)
    return;
  if (auto bad = chat_client(reasoner).check_settings())
    throw input_error(o.experiment_file + ": reasoner: " + *bad);
  o.reasoner = wire::to_wire(reasoner);
  // The templates as they are now travel with each request (and are stored).
  o.analyzer_prompt = read_text_file(configs_dir() + "/prompts/diagnosis_analyzer.md");
  o.proposal_prompt = read_text_file(configs_dir() + "/prompts/diagnosis_proposal.md");
}

wire::tpu_session_opened opened_record(const tpu_session_options& o) {
  wire::tpu_session_opened r;
  r.experiment_name = o.experiment.name;
  r.experiment_file = o.experiment_file;
  r.experiment_yaml = o.experiment_yaml;
  r.model = o.experiment.model.name;
  r.hardware = o.experiment.cluster.name + " " + to_string(o.experiment.slice);
  r.budget = o.budget;
  r.seed = o.seed;
  r.steps = o.steps;
  r.time_scale = o.time_scale;
  r.failure_rate = o.failure_rate;
  r.pools = o.pools;
  if (const auto& p = o.early_stop)
    r.early_stop = {true, p->warmup, p->stable_after, p->tolerance, p->rung, p->hang_s, p->wall_s};
  r.simulator = o.simulator;
  r.runs_dir = o.runs_dir;
  r.env = o.env;
  r.secret_env = o.secret_env;
  r.job_mesh = to_string(o.experiment.mesh);
  r.job_mesh_verdict = job_mesh_verdict(o.experiment);
  r.reasoner = o.reasoner;
  r.analyzer_prompt = o.analyzer_prompt;
  r.proposal_prompt = o.proposal_prompt;
  return r;
}

tpu_session_options options_of(const std::string& id, const wire::tpu_session_opened& r) {
  tpu_session_options o;
  o.id = id;
  o.experiment_file = r.experiment_file;
  o.experiment_yaml = r.experiment_yaml;
  o.experiment = parse_experiment(r.experiment_yaml, r.experiment_file);
  o.budget = r.budget;
  o.seed = r.seed;
  o.steps = r.steps;
  o.time_scale = r.time_scale;
  o.failure_rate = r.failure_rate;
  o.pools = r.pools;
  if (const auto& e = r.early_stop; e.enabled)
    o.early_stop = early_stop_policy{e.warmup, e.stable_after, e.tolerance, e.rung, e.hang_s,
                                     e.wall_s};
  o.simulator = r.simulator;
  o.runs_dir = r.runs_dir;
  o.env = r.env;
  o.secret_env = r.secret_env;
  o.reasoner = r.reasoner;
  o.analyzer_prompt = r.analyzer_prompt;
  o.proposal_prompt = r.proposal_prompt;
  return o;
}

int tpu_session_state::best_ended_before(int end) const {
  std::vector<wire::tpu_trial_row> rows;
  for (int i = 0; i < end; ++i)
    rows.push_back(tpu_row_of(trials[i], opts.experiment.mesh));
  const int fastest = tpu_fastest_run(rows);
  for (int i = 0; i < end; ++i)
    if (trials[i].index == fastest)
      return i;
  return -1;
}

int tpu_session_state::best() const { return best_ended_before(int(trials.size())); }

std::vector<std::string> tpu_session_topics(const std::string& id) {
  // Trial n's records are session "<id>.t<n>": one prefix covers them all.
  return {topics::diagnosis(id + "."), topics::proposals(id + ".")};
}

tpu_session_state::tpu_session_state(tpu_session_actor::pointer self) : basic_agent_state(self) {
  on<wire::diagnosis>([this](const wire::envelope& e, wire::diagnosis d) {
    auto* run = find_diagnosing(e.session);
    if (!run || run->diagnosis)
      return;
    if (!d.error.empty())
      return fail("the diagnosis of trial " + std::to_string(run->trial.index)
                  + " failed: " + d.error);
    run->diagnosis = std::move(d);
    maybe_diagnosed(*run);
  });
  on<wire::proposal_set>([this](const wire::envelope& e, wire::proposal_set p) {
    auto* run = find_diagnosing(e.session);
    if (!run || run->proposals)
      return;
    run->proposals = std::move(p);
    maybe_diagnosed(*run);
  });
}

tpu_session_state::~tpu_session_state() {
  // The daemon stopped with runs in flight (finish and fail leave none).
  for (auto& [index, run] : running_)
    if (run->process && run->on_slurm && opts.keep_jobs)
      run->process->detach(); // the next daemon attaches to it
}

void tpu_session_state::open(tpu_session_options options, session_listener_actor l) {
  opts = std::move(options);
  listener = std::move(l);
  pools_ = opts.pools;
  if (pools_.empty()) {
    wire::pool_wire simulated;
    simulated.name = "simulated";
    pools_.push_back(simulated);
  }
  if (opts.early_stop)
    self->delayed_send(self, tpu_clock_period, tick_atom_v, tpu_clock_token);
  if (opts.resume)
    return resume();
  if (opts.budget <= 0)
    return finish(session_state::finished);
  attempt([this] {
    planned_ = planned_mesh_steps(opts.experiment, std::size_t(opts.budget));
    fill();
  });
}

void tpu_session_state::cancel(const std::string& why) {
  finish(session_state::cancelled, why);
}

void tpu_session_state::resume() {
  with_history(
    opts.id,
    [this](std::vector<wire::envelope> records) {
      attempt([&] {
        planned_ = planned_mesh_steps(opts.experiment, std::size_t(opts.budget));
        recover_diagnoses(take_stored_runs(records), 0);
      });
    },
    [this](const caf::error& err) {
      fail("cannot read the records of " + opts.id + " to resume it: " + describe(err));
    });
}

std::vector<int> tpu_session_state::take_stored_runs(const std::vector<wire::envelope>& records) {
  // The session's records through the one fold every reader uses.
  session_ledger ledger{opts.id};
  ledger.apply(records);
  const auto& rows = ledger.tpu_runs();
  std::vector<int> diagnosed;
  std::vector<tpu_trial> interrupted;
  for (const auto& [index, r] : rows) {
    auto t = tpu_trial_of(r);
    started_ = std::max(started_, index);
    tried_.push_back(t.mesh);
    if (r.ended_ms == 0) {
      // A batch job outlives the daemon that submitted it: follow it again.
      const auto* stored = ledger.trial(index);
      if (stored && stored->job && stored->job->slurm_job_id > 0 && slurm_pool_named(t.pool)) {
        to_attach_.push_back({t, *stored->job});
        continue;
      }
      // It ran when the daemon stopped: its trainer went with it.
      t.error = "interrupted: the daemon stopped while it ran";
      t.ended_ms = tpu_wall_ms();
      retries_.push_back({t.mesh, index, t.pool});
      interrupted.push_back(t);
      continue;
    }
    if (!t.bottleneck.empty())
      diagnosed.push_back(index);
    trials.push_back(std::move(t));
  }
  std::sort(trials.begin(), trials.end(),
            [](const auto& a, const auto& b) { return a.ended_ms < b.ended_ms; });
  // A transient failure whose retry had not started when the daemon
  // stopped is still due one.
  for (const auto& t : trials)
    if (t.transient && t.retry_of == 0
        && std::none_of(rows.begin(), rows.end(),
                        [&](const auto& row) { return row.second.retry_of == t.index; }))
      retries_.push_back({t.mesh, t.index, t.pool});
  for (auto& t : interrupted) {
    store_row(t);
    trials.push_back(std::move(t));
  }
  return diagnosed;
}

void tpu_session_state::recover_diagnoses(std::vector<int> diagnosed, size_t i) {
  if (i == diagnosed.size()) {
    if (!fits_.empty())
      planned_ = planned_mesh_steps(opts.experiment, std::size_t(opts.budget),
                                    combine_calibrations(fits_));
    spdlog::info("tpu session {}: resumed after {} runs", opts.id, started_);
    attach_runs();
    return fill();
  }
  const auto index = diagnosed[i];
  const auto sid = opts.id + ".t" + std::to_string(index);
  with_history(
    sid,
    [this, diagnosed = std::move(diagnosed), i, index](std::vector<wire::envelope> records) {
      attempt([&] {
        for (const auto& e : records) {
          if (e.type == wire::type_name<wire::proposal_set>()) {
            auto set = wire::body_of<wire::proposal_set>(e);
            if (!set.proposals.empty())
              last_set_ = set;
            sets_[index] = std::move(set);
          } else if (e.type == wire::type_name<wire::diagnosis>()) {
            const auto d = wire::body_of<wire::diagnosis>(e);
            auto run_exp = opts.experiment;
            for (const auto& t : trials)
              if (t.index == index)
                run_exp.mesh = t.mesh;
            if (auto fit = fit_mesh_calibration(run_exp, d.measured_step_ms, d.time_by_class))
              fits_.push_back(*fit);
          }
        }
        recover_diagnoses(diagnosed, i + 1);
      });
    },
    [this, sid](const caf::error& err) {
      fail("cannot read the records of " + sid + " to resume: " + describe(err));
    });
}

void tpu_session_state::store_row(const tpu_trial& t) {
  store(wire::make_envelope(opts.id, t.index, tpu_row_of(t, opts.experiment.mesh)),
        [](uint64_t) {},
        [this, index = t.index](const caf::error& err) {
          fail("cannot store trial " + std::to_string(index) + ": " + describe(err));
        });
}

void tpu_session_state::attempt(const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

std::optional<mesh_step> tpu_session_state::next_mesh() const {
  if (tried_.empty())
    return first_mesh_trial(opts.experiment, planned_);
  // Move from the best run so far, as its diagnosis proposes; when all of
  // those were run, from the latest diagnosis.
  std::optional<std::vector<mesh_step>> best_steps;
  if (const int b = best(); b >= 0)
    if (const auto it = sets_.find(trials[b].index); it != sets_.end())
      best_steps = mesh_steps(it->second);
  return next_mesh_trial(planned_, best_steps ? &*best_steps : nullptr, mesh_steps(last_set_),
                         tried_);
}

namespace {

// A pool's latest runs that never reached their trainer, in a row, and
// the last one's words.
struct launch_streak {
  int in_a_row = 0;
  std::string last_error;
};

launch_streak launch_streak_of(const std::string& pool, const std::vector<tpu_trial>& ended) {
  launch_streak s;
  for (const auto& t : ended)
    if (t.pool == pool) {
      s.in_a_row = t.launch_failed ? s.in_a_row + 1 : 0;
      s.last_error = t.error;
    }
  return s;
}

// The pools as placement sees them: a run holds its slot until it was
// diagnosed, so that each slot moves from what its last run taught; a pool
// whose latest runs never started is down, and paused after
// max_launch_failures of them in a row, as a GPU session's pools are.
std::vector<pool_load> tpu_pool_loads(const std::vector<wire::pool_wire>& pools,
                                      const std::map<int, std::unique_ptr<tpu_run_in_flight>>& running,
                                      const std::vector<tpu_trial>& ended) {
  std::vector<pool_load> out;
  for (const auto& p : pools) {
    pool_load l{p.name, p.capacity};
    for (const auto& [index, run] : running)
      l.in_flight += run->trial.pool == p.name;
    const auto streak = launch_streak_of(p.name, ended);
    l.down = streak.in_a_row > 0;
    l.paused = streak.in_a_row >= max_launch_failures;
    out.push_back(l);
  }
  return out;
}

// The paused pools in words, as a GPU session says them.
std::string tpu_paused_pools(const std::vector<pool_load>& loads,
                             const std::vector<tpu_trial>& ended) {
  std::string out;
  for (const auto& l : loads)
    if (l.paused) {
      const auto streak = launch_streak_of(l.name, ended);
      out += (out.empty() ? "" : "; ")
             + paused_pool_text(l.name, streak.in_a_row, streak.last_error);
    }
  return out;
}

} // namespace

void tpu_session_state::fill() {
  if (ending || filling_)
    return;
  filling_ = true;
  // The report names the mesh chosen after the latest run, even when the
  // budget leaves it unrun.
  if (!trials.empty() && trials.back().next.empty() && retries_.empty())
    if (const auto next = next_mesh())
      trials.back().next = next->title;
  while (!ending && started_ < opts.budget
         && place_trial(tpu_pool_loads(pools_, running_, trials))) {
    if (!retries_.empty()) {
      // A retry runs off the pool it failed on while another is up, and
      // waits for that pool's free slot, keeping its share of the budget.
      const auto r = retries_.front();
      if (!place_trial(tpu_pool_loads(pools_, running_, trials), r.pool))
        break;
      retries_.pop_front();
      start_run(r.mesh, r.retry_of, r.pool);
      continue;
    }
    const auto next = next_mesh();
    if (!next)
      break;
    tried_.push_back(next->mesh);
    start_run(next->mesh, 0, "");
  }
  filling_ = false;
  const auto loads = tpu_pool_loads(pools_, running_, trials);
  if (!ending && running_.empty() && all_paused(loads) && started_ < opts.budget)
    return fail("no pool is left to run trials on: " + tpu_paused_pools(loads, trials));
  if (!ending && running_.empty())
    finish(started_ >= opts.budget || !retries_.empty() ? session_state::finished
                                                        : session_state::exhausted);
}

std::vector<std::string> tpu_session_state::maxtext_overrides(const tpu_run_in_flight& run) const {
  const auto& exp = opts.experiment;
  const maxtext_launch launch{exp.model, run.trial.mesh, exp.dcn_mesh, exp.workload,
                              exp.slice.chips()};
  // Throws input_error when MaxText would refuse the mesh or train another
  // batch than the experiment's: such a run is never launched.
  auto checked = checked_maxtext_args(launch);
  std::vector<std::string> args{"run_name=t" + std::to_string(run.trial.index),
                                "base_output_directory=" + run.base,
                                "steps=" + std::to_string(opts.steps), "profiler=xplane"};
  args.insert(args.end(), checked.begin(), checked.end());
  return args;
}

tpu_run_in_flight& tpu_session_state::enter_run(const tpu_trial& trial,
                                                const wire::pool_wire& pool) {
  auto run = std::make_unique<tpu_run_in_flight>();
  run->trial = trial;
  run->key = opts.id + ".t" + std::to_string(trial.index);
  run->simulated = pool.kind == pool_kind::simulated;
  run->on_slurm = pool.kind == pool_kind::slurm;
  run->base = pool.workdir.empty() ? opts.runs_dir : pool.workdir + "/" + opts.id;
  run->dir = run->base + "/t" + std::to_string(trial.index);
  run->out.emplace(maxtext_framework(),
                   secret_redactor(values_in_this_process(trial_secret_names(opts.secret_env))));
  auto& r = *run;
  running_[trial.index] = std::move(run);
  return r;
}

void tpu_session_state::start_run(const tpu_mesh& mesh, int retry_of,
                                  const std::string& avoid_pool) {
  const auto where = place_trial(tpu_pool_loads(pools_, running_, trials), avoid_pool);
  const auto& pool = pools_[*where];
  tpu_trial trial;
  trial.index = ++started_;
  trial.mesh = mesh;
  trial.pool = pool.name;
  trial.retry_of = retry_of;
  trial.started_ms = tpu_wall_ms();
  auto& r = enter_run(trial, pool);
  store_row(r.trial); // a daemon that restarts knows it ran
  try {
    launch(r, pool);
  } catch (const input_error& e) {
    r.trial.error = e.what(); // what MaxText would say; never launched
    conclude(r.trial.index, {});
  } catch (const std::exception& e) {
    fail("cannot start trial " + std::to_string(r.trial.index) + " on pool '" + pool.name
         + "': " + e.what());
  }
}

void tpu_session_state::attach_runs() {
  for (auto& [trial, job] : std::exchange(to_attach_, {})) {
    const auto* pool = slurm_pool_named(trial.pool);
    auto& run = enter_run(trial, *pool);
    arm_stopper(run);
    auto [on_line, on_exit] = output_handlers(self, run.key);
    try {
      run.process = slurm_job_watch::attach(slurm_client_for(*pool), slurm_job_id(job.slurm_job_id),
                                            job.output_path, std::move(on_line),
                                            std::move(on_exit));
    } catch (const std::exception& e) {
      // Its job cannot be followed: as a run the daemon's stop ended.
      spdlog::warn("tpu session {}: cannot attach to Slurm job {} of trial {}: {}", opts.id,
                   job.slurm_job_id, trial.index, e.what());
      run.trial.error = "interrupted: the daemon stopped while it ran";
      retries_.push_back({trial.mesh, trial.index, trial.pool});
      conclude(trial.index, {});
      continue;
    }
    spdlog::info("tpu session {}: trial {} follows Slurm job {} again", opts.id, trial.index,
                 job.slurm_job_id);
    arm_timer(run);
  }
}

const wire::pool_wire* tpu_session_state::slurm_pool_named(const std::string& name) const {
  for (const auto& p : pools_)
    if (p.name == name && p.kind == pool_kind::slurm)
      return &p;
  return nullptr;
}

void tpu_session_state::launch(tpu_run_in_flight& run, const wire::pool_wire& pool) {
  const auto overrides = maxtext_overrides(run);
  std::vector<std::string> argv;
  if (run.simulated) {
    argv = {opts.simulator, "train", "--seed", std::to_string(opts.seed), "--time-scale",
            std::to_string(opts.time_scale), "--failure-rate", std::to_string(opts.failure_rate),
            opts.experiment_file};
    argv.insert(argv.end(), overrides.begin(), overrides.end());
  } else {
    launch_values v;
    v.framework_args = overrides;
    v.framework = maxtext_framework().args_field();
    v.framework_title = std::string(maxtext_framework().title());
    v.trial = run.trial.index;
    v.session = opts.id;
    v.workdir = run.dir;
    argv = launch_template::parse(pool.launch).render(v);
  }
  arm_stopper(run);
  auto env = tpu_run_environment(opts, pool);
  if (pool.kind == pool_kind::slurm) {
    make_slurm_job_dir(pool, run.dir);
    auto [on_line, on_exit] = output_handlers(self, run.key);
    // The job's id reaches the pool once Slurm accepts it: a daemon that
    // restarts follows that job instead of running the mesh again.
    auto weak = caf::actor_cast<caf::weak_actor_ptr>(self);
    auto submitted = [weak, key = run.key](slurm_job_id id, const std::string& output_file) {
      if (auto me = caf::actor_cast<tpu_session_actor>(weak))
        caf::anon_send(me, submitted_atom_v, key, int64_t(id), output_file);
    };
    run.process = std::make_unique<slurm_job_watch>(
      slurm_client_for(pool),
      slurm_request_in(pool, "paratune-" + opts.id + "-t" + std::to_string(run.trial.index),
                       run.dir, argv, std::move(env)),
      std::move(on_line), std::move(on_exit), std::chrono::milliseconds(500), submitted);
  } else {
    std::filesystem::create_directories(run.dir);
    run.process = launch_child(self, argv, run.key, std::move(env));
  }
  arm_timer(run);
}

void tpu_session_state::arm_stopper(tpu_run_in_flight& run) {
  if (!opts.early_stop)
    return;
  const int b = best();
  run.stopper.emplace(*opts.early_stop, incumbent_rate{0, b >= 0 ? trials[b].step_ms : 0});
}

void tpu_session_state::on_submitted(const std::string& key, int64_t job_id,
                                     const std::string& output_file) {
  const auto* run = find(key);
  if (!run || ending)
    return;
  wire::trial_job job;
  job.trial = run->trial.index;
  job.slurm_job_id = job_id;
  job.output_path = output_file;
  store(wire::make_envelope(opts.id, job.trial, job), [](uint64_t) {},
        [this, index = job.trial](const caf::error& err) {
          fail("cannot store the Slurm job of trial " + std::to_string(index) + ": "
               + describe(err));
        });
}

void tpu_session_state::end_early(tpu_run_in_flight& run, const std::string& why) {
  run.trial.stopped = why;
  if (run.process)
    run.process->terminate();
}

void tpu_session_state::arm_timer(tpu_run_in_flight& run) {
  if (run.timer)
    timers_.erase(run.timer);
  run.timer = ++tokens_;
  timers_[run.timer] = run.trial.index;
  // A run on a cluster waits for the scheduler and trains for as long as
  // it must: its own clock is the early stopper's wall and hang limits.
  if (run.at == tpu_run_in_flight::stage::running && !run.simulated)
    return;
  self->delayed_send(self, step_limit(run), tick_atom_v, run.timer);
}

std::chrono::seconds tpu_session_state::step_limit(const tpu_run_in_flight& run) const {
  if (run.at != tpu_run_in_flight::stage::diagnosing || opts.reasoner.mode == reasoner_mode::builtin)
    return opts.step_timeout;
  // Each of the two agents asks the model, with its retries.
  const auto& r = opts.reasoner;
  return opts.step_timeout
         + std::chrono::seconds(static_cast<long>(2 * r.timeout_s * (r.max_retries + 1)));
}

tpu_run_in_flight* tpu_session_state::find(const std::string& key) {
  for (auto& [index, run] : running_)
    if (run->key == key && run->at == tpu_run_in_flight::stage::running)
      return run.get();
  return nullptr;
}

tpu_run_in_flight* tpu_session_state::find_diagnosing(const std::string& trial_session) {
  for (auto& [index, run] : running_)
    if (run->key == trial_session && run->at == tpu_run_in_flight::stage::diagnosing)
      return run.get();
  return nullptr;
}

void tpu_session_state::on_line(const std::string& key, const std::string& line) {
  auto* run = find(key);
  if (!run || ending)
    return;
  run->last_line = std::chrono::steady_clock::now();
  const auto read = run->out->read(run->out->keep(line));
  run->steps += int(read.iterations.size());
  for (const auto& step : read.iterations)
    run->step_ms_total += step.elapsed_ms;
  // Only the rung rule ends a TPU run: the profile comes at the run's end.
  for (const auto& step : read.iterations)
    if (run->stopper && run->trial.stopped.empty())
      if (const auto d = run->stopper->on_iteration(step);
          d.reason == stop_reason::cannot_beat_incumbent)
        end_early(*run, d.text);
}

void tpu_session_state::on_exit(const std::string& key, int exit_code) {
  auto* run = find(key);
  if (!run || ending)
    return;
  run->process.reset(); // its reader has delivered everything
  attempt([&] { ran(*run, exit_code); });
}

void tpu_session_state::ran(tpu_run_in_flight& run, int exit_code) {
  auto& out = *run.out;
  out.finish();
  const auto& reader = out.reader();
  auto& t = run.trial;
  const auto trial = "trial " + std::to_string(t.index);
  const auto score = reader.score(0);
  const auto& exp = opts.experiment;
  t.chip_hours = run.step_ms_total / 3.6e6 * exp.slice.chips();
  const auto mfu_of = [&](double step_ms) {
    return measured_mesh_mfu(exp.model, exp.cluster, exp.slice, t.mesh, exp.dcn_mesh, exp.workload,
                             step_ms);
  };
  if (!t.stopped.empty()) {
    // Ended early: what it measured until then, never diagnosed (MaxText
    // writes the profile when the run ends).
    t.step_ms = score.scored > 0 ? score.iteration_ms : 0;
    t.mfu = mfu_of(t.step_ms);
    return conclude(t.index, {});
  }
  if (!reader.recognised() && run.simulated)
    return fail("paratune-tpu-sim printed no MaxText line for " + trial + " (exit status "
                + std::to_string(exit_code) + "): " + out.last_line());
  // MaxText's own error line says why a run failed; its exit status alone
  // when it printed none.
  const auto first = reader.first_failure();
  if (first)
    t.error = first->message;
  else if (exit_code != 0)
    t.error = "exit status " + std::to_string(exit_code) + ": " + out.last_line();
  else if (score.scored == 0)
    t.error = "no step was measured: " + std::to_string(run.steps)
              + " timed, the first is compilation";
  if (t.error.empty()) {
    t.step_ms = score.iteration_ms;
    t.mfu = mfu_of(t.step_ms);
    return request_diagnosis(run);
  }
  // A run that never reached its trainer counts against its pool; one
  // that failed for a reason outside its mesh runs again.
  t.launch_failed = !first && run.steps == 0 && never_ran(exit_code);
  t.transient = maxtext_framework().transient(first, exit_code);
  int runs_of_mesh = 0;
  for (const auto& done : trials)
    runs_of_mesh += done.mesh == t.mesh;
  if (t.transient && runs_of_mesh + 1 < opts.max_runs_per_mesh)
    retries_.push_back({t.mesh, t.index, t.pool});
  conclude(t.index, {});
}

void tpu_session_state::request_diagnosis(tpu_run_in_flight& run) {
  run.at = tpu_run_in_flight::stage::diagnosing;
  arm_timer(run);
  const auto sid = run.key;
  wire::diagnose_request req;
  req.experiment_yaml = with_mesh(opts.experiment_yaml, run.trial.mesh);
  req.experiment_name = opts.experiment_file;
  req.xprof = run.dir;
  req.reasoner = opts.reasoner;
  req.analyzer_prompt = opts.analyzer_prompt;
  req.proposal_prompt = opts.proposal_prompt;
  store_and_publish(topics::diagnose(sid), wire::make_envelope(sid, 0, req), {},
                    [this, sid](const caf::error& err) {
                      fail("cannot store the diagnose_request of " + sid + ": " + describe(err));
                    });
}

void tpu_session_state::maybe_diagnosed(tpu_run_in_flight& run) {
  if (!run.diagnosis || !run.proposals)
    return;
  attempt([&] {
    run.trial.bottleneck = run.diagnosis->bottleneck;
    // What this run measured corrects the model the planner ranks by.
    auto run_exp = opts.experiment;
    run_exp.mesh = run.trial.mesh;
    if (auto fit = fit_mesh_calibration(run_exp, run.diagnosis->measured_step_ms,
                                        run.diagnosis->time_by_class)) {
      fits_.push_back(*fit);
      planned_ = planned_mesh_steps(opts.experiment, std::size_t(opts.budget),
                                    combine_calibrations(fits_));
    }
    auto set = *run.proposals;
    conclude(run.trial.index, std::move(set));
  });
}

void tpu_session_state::conclude(int index, wire::proposal_set set) {
  const auto it = running_.find(index);
  if (it == running_.end())
    return;
  timers_.erase(it->second->timer);
  it->second->trial.ended_ms = tpu_wall_ms();
  trials.push_back(std::move(it->second->trial));
  running_.erase(it);
  const auto& t = trials.back();
  store_row(t);
  if (!set.proposals.empty())
    last_set_ = set;
  sets_[t.index] = std::move(set);
  const int now = int(trials.size()) - 1;
  const int before = best_ended_before(now);
  if (best() == now) {
    // The runs still training now race a better best.
    for (auto& [i, run] : running_)
      if (run->stopper)
        run->stopper->set_incumbent({0, t.step_ms});
    if (before >= 0)
      record_improvement(before, now);
  }
  fill();
}

void tpu_session_state::record_improvement(int before, int now) {
  // An improvement joins the ledger, so that later diagnoses can cite it.
  const auto trial = trials[now].index;
  store(wire::make_envelope(wire::optimization_ledger, 0,
                            improvement(opts, trials[before], trials[now])),
        [](uint64_t) {},
        [this, trial](const caf::error& err) {
          fail("cannot record the improvement of trial " + std::to_string(trial)
               + " in the optimization ledger: " + describe(err));
        });
}

void tpu_session_state::replay() {
  for (auto& [index, run] : running_)
    if (run->at == tpu_run_in_flight::stage::diagnosing)
      read_back(run->key, {});
}

void tpu_session_state::read_back(const std::string& trial_session, std::function<void()> after) {
  with_history(
    trial_session,
    [this, after](std::vector<wire::envelope> history) {
      for (const auto& e : history)
        dispatch(e); // the handlers take each answer once, for the run that waits for it
      if (after)
        after();
    },
    [this, trial_session](const caf::error& err) {
      fail("cannot read the records of " + trial_session + ": " + describe(err));
    });
}

void tpu_session_state::check_clocks() {
  const auto now = std::chrono::steady_clock::now();
  auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
  for (auto& [index, run] : running_) {
    if (run->at != tpu_run_in_flight::stage::running || !run->stopper
        || !run->trial.stopped.empty())
      continue;
    if (const auto d = run->stopper->on_clock(seconds(now - run->started),
                                              seconds(now - run->last_line)))
      end_early(*run, d.text);
  }
}

void tpu_session_state::on_timeout(int token) {
  if (ending)
    return;
  if (token == tpu_clock_token) {
    check_clocks();
    self->delayed_send(self, tpu_clock_period, tick_atom_v, tpu_clock_token);
    return;
  }
  const auto live = timers_.find(token);
  if (live == timers_.end())
    return; // that step is over
  auto& run = *running_.at(live->second);
  const auto trial = "trial " + std::to_string(run.trial.index);
  const auto limit = " within " + std::to_string(step_limit(run).count()) + " s";
  if (run.at == tpu_run_in_flight::stage::running)
    return fail("paratune-tpu-sim did not finish " + trial + limit);
  // The bus may have lost the answers: the pool has them if they came.
  read_back(run.key, [this, token, trial, limit, index = run.trial.index] {
    if (!timers_.count(token))
      return;
    const auto& r = *running_.at(index);
    fail((r.diagnosis ? "no proposals for " : "no diagnosis of ") + trial + limit);
  });
}

void tpu_session_state::finish(session_state end, const std::string& text) {
  if (ending)
    return;
  ending = true;
  // Runs a cancel ends are recorded as it leaves them: stopped.
  for (auto& [index, run] : running_) {
    run->trial.stopped = text.empty() ? "the session ended" : text;
    run->trial.ended_ms = tpu_wall_ms();
    trials.push_back(run->trial);
  }
  running_.clear(); // ends the trainers that still run
  auto record = end_of(end, trials, best(), opts.experiment.mesh);
  record.text = text;
  // The report is the session's last record: tune and report read it from
  // the pool, and the listener hears only that the session ended.
  store(wire::make_envelope(opts.id, 0, record),
        [this, end, text](uint64_t) {
          self->send(listener, done_atom_v, opts.id, end, text);
          self->quit();
        },
        [this](const caf::error& err) {
          const auto reason = "cannot store the session's end: " + describe(err);
          spdlog::error("tpu session {} failed: {}", opts.id, reason);
          self->send(listener, done_atom_v, opts.id, session_state::failed, reason);
          self->quit(caf::make_error(ec::session_failure, reason));
        });
}

void tpu_session_state::fail(const std::string& reason) {
  if (ending)
    return;
  ending = true;
  running_.clear(); // ends the trainers that still run
  spdlog::error("tpu session {} failed: {}", opts.id, reason);
  self->send(listener, done_atom_v, opts.id, session_state::failed, reason);
  self->quit(caf::make_error(ec::session_failure, reason));
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
    [=](line_atom, const std::string& key, const std::string& line) {
      self->state.on_line(key, line);
    },
    [=](exited_atom, const std::string& key, int code) { self->state.on_exit(key, code); },
    [=](submitted_atom, const std::string& key, int64_t job_id, const std::string& output) {
      self->state.on_submitted(key, job_id, output);
    },
    [=](tick_atom, int token) { self->state.on_timeout(token); },
    [=](cancel_atom, const std::string& why) { self->state.cancel(why); },
    [=](agent_down_atom, const std::string& agent, const std::string& reason) {
      self->state.fail("the " + agent + " agent died: " + reason);
    },
  };
}

} // namespace paratune
