#include "actors/tpu_session.hpp"

#include <cstdio>
#include <filesystem>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "core/diagnosis/mesh_calibration_fit.hpp"

#include "core/human_units.hpp"
#include "actors/bus_bridge.hpp"
#include "adapters/process/child_process.hpp"
#include "core/secret_env.hpp"
#include "core/trial_environment.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "messages/ec.hpp"

namespace paratune {

namespace {

constexpr size_t output_lines = 40; ///< simulator lines kept for an error message

// The experiment text with the trial's mesh in place of the file's.
std::string with_mesh(const std::string& yaml, const tpu_mesh& mesh) {
  YAML::Node root = YAML::Load(yaml);
  root["mesh"] = to_string(mesh);
  return YAML::Dump(root);
}

// The simulator's answer: its last line that is a JSON object. Its stderr
// shares the pipe (child_process), so other lines may come before it.
std::optional<nlohmann::json> answer_of(const std::deque<std::string>& lines) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    auto j = nlohmann::json::parse(*it, nullptr, false);
    if (j.is_object())
      return j;
  }
  return std::nullopt;
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

wire::tpu_session_end end_of(session_state state, const std::vector<tpu_trial>& trials,
                            int best) {
  wire::tpu_session_end end;
  end.state = state;
  for (const auto& t : trials)
    end.trials.push_back({t.index, to_string(t.mesh), t.step_ms, t.error, t.bottleneck, t.next});
  if (best >= 0)
    end.best_trial = trials[best].index;
  return end;
}

} // namespace

std::vector<std::string> tpu_session_topics(const std::string& id) {
  // Trial n's records are session "<id>.t<n>": one prefix covers them all.
  return {topics::diagnosis(id + "."), topics::proposals(id + ".")};
}

tpu_session_state::tpu_session_state(caf::event_based_actor* self) : agent_state(self) {
  on<wire::diagnosis>([this](const wire::envelope& e, wire::diagnosis d) {
    if (phase != tpu_phase::diagnosing || e.session != trial_session() || diagnosis_)
      return;
    if (!d.error.empty())
      return fail("the diagnosis of trial " + std::to_string(current_.index)
                  + " failed: " + d.error);
    diagnosis_ = std::move(d);
    if (proposals_)
      attempt([this] { diagnosed(); });
  });
  on<wire::proposal_set>([this](const wire::envelope& e, wire::proposal_set p) {
    if (phase != tpu_phase::diagnosing || e.session != trial_session() || proposals_)
      return;
    proposals_ = std::move(p);
    if (diagnosis_)
      attempt([this] { diagnosed(); });
  });
}

tpu_session_state::~tpu_session_state() = default;

void tpu_session_state::open(tpu_session_options options, caf::actor l) {
  opts = std::move(options);
  listener = std::move(l);
  if (opts.budget <= 0)
    return finish(session_state::finished);
  attempt([this] {
    planned_ = planned_mesh_steps(opts.experiment, std::size_t(opts.budget));
    run_trial(first_mesh_trial(opts.experiment, planned_).mesh);
  });
}

std::string tpu_session_state::trial_session() const {
  return opts.id + ".t" + std::to_string(current_.index);
}

std::string tpu_session_state::run_dir() const {
  return (std::filesystem::path(opts.runs_dir) / ("t" + std::to_string(current_.index))).string();
}

void tpu_session_state::enter(tpu_phase next) {
  phase = next;
  ++step_;
  if (next != tpu_phase::ending)
    self->delayed_send(self, opts.step_timeout, tick_atom_v, step_);
}

void tpu_session_state::attempt(const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

namespace {

/// The simulator's environment, chosen as a GPU trial's is
/// (core/trial_environment.hpp): the base variables and where paratune's
/// catalogs are, never this process's secrets.
env_list tpu_simulator_environment() {
  trial_env_sources from;
  from.inherited = environment_of_this_process();
  from.framework = framework_environment(1, 1, true, from.inherited);
  from.secrets.insert(always_secret_env().begin(), always_secret_env().end());
  return trial_environment(from);
}

} // namespace

void tpu_session_state::run_trial(const tpu_mesh& mesh) {
  current_ = tpu_trial{};
  current_.index = int(trials.size()) + 1;
  current_.mesh = mesh;
  tried_.push_back(mesh);
  output_.clear();
  diagnosis_.reset();
  proposals_.reset();
  enter(tpu_phase::simulating);
  try {
    process_ = launch_child({opts.simulator, "run", "--experiment", opts.experiment_file, "--mesh",
                             to_string(mesh), "--out", run_dir(), "--seed",
                             std::to_string(opts.seed)},
                            trial_session(), tpu_simulator_environment());
  } catch (const std::exception& e) {
    fail("cannot start " + opts.simulator + ": " + e.what());
  }
}

void tpu_session_state::on_line(const std::string& key, const std::string& line) {
  if (phase != tpu_phase::simulating || key != trial_session())
    return;
  output_.push_back(line);
  if (output_.size() > output_lines)
    output_.pop_front();
}

void tpu_session_state::on_exit(const std::string& key, int exit_code) {
  if (phase != tpu_phase::simulating || key != trial_session())
    return;
  process_.reset(); // its reader thread has delivered everything
  attempt([&] { simulated(exit_code); });
}

void tpu_session_state::simulated(int exit_code) {
  const auto run = answer_of(output_);
  if (!run)
    return fail("paratune-tpu-sim did not answer for trial " + std::to_string(current_.index)
                + " (exit status " + std::to_string(exit_code)
                + "): " + (output_.empty() ? "no output" : output_.back()));
  if (!run->value("ok", false)) {
    current_.error = run->value("error", std::string("the run failed"));
    return conclude({});
  }
  current_.step_ms = run->value("step_time_ms", 0.0);
  request_diagnosis();
}

void tpu_session_state::request_diagnosis() {
  enter(tpu_phase::diagnosing);
  const auto sid = trial_session();
  wire::diagnose_request req{with_mesh(opts.experiment_yaml, current_.mesh), opts.experiment_file,
                             run_dir(), "", ""};
  store_and_publish(topics::diagnose(sid), wire::make_envelope(sid, 0, req), {},
                    [this, sid](const caf::error& err) {
                      fail("cannot store the diagnose_request of " + sid + ": " + describe(err));
                    });
}

void tpu_session_state::diagnosed() {
  current_.bottleneck = diagnosis_->bottleneck;
  // What this run measured corrects the model the planner ranks by.
  auto run_exp = opts.experiment;
  run_exp.mesh = current_.mesh;
  if (auto fit = fit_mesh_calibration(run_exp, diagnosis_->measured_step_ms,
                                      diagnosis_->time_by_class)) {
    fits_.push_back(*fit);
    planned_ = planned_mesh_steps(opts.experiment, std::size_t(opts.budget),
                                  combine_calibrations(fits_));
  }
  if (!proposals_->proposals.empty())
    last_set_ = *proposals_;
  conclude(*proposals_);
}

void tpu_session_state::conclude(wire::proposal_set set) {
  trials.push_back(current_);
  sets_.push_back(std::move(set));
  const int now = int(trials.size()) - 1;
  const bool improved = current_.error.empty()
                        && (best_ < 0 || current_.step_ms < trials[best_].step_ms);
  if (!improved)
    return advance();
  const int before = best_;
  best_ = now;
  if (before < 0)
    return advance();
  // An improvement joins the ledger, so that later diagnoses can cite it.
  enter(tpu_phase::recording);
  store(wire::make_envelope(wire::optimization_ledger, 0,
                            improvement(opts, trials[before], trials[now])),
        [this](uint64_t) { attempt([this] { advance(); }); },
        [this](const caf::error& err) {
          fail("cannot record the improvement of trial " + std::to_string(current_.index)
               + " in the optimization ledger: " + describe(err));
        });
}

void tpu_session_state::advance() {
  // Move from the best run so far, as its diagnosis proposes; when all of
  // those were run, from the latest diagnosis.
  auto& last = trials.back();
  std::optional<std::vector<mesh_step>> best_steps;
  if (best_ >= 0)
    best_steps = mesh_steps(sets_[best_]);
  const auto next = next_mesh_trial(planned_, best_steps ? &*best_steps : nullptr,
                                    mesh_steps(last_set_), tried_);
  if (next)
    last.next = next->title;
  if (int(trials.size()) >= opts.budget)
    return finish(session_state::finished);
  if (!next)
    return finish(session_state::exhausted);
  run_trial(next->mesh);
}

void tpu_session_state::replay() {
  if (phase == tpu_phase::diagnosing)
    read_back({});
}

void tpu_session_state::read_back(std::function<void()> after) {
  with_history(
    trial_session(),
    [this, after](std::vector<wire::envelope> history) {
      for (const auto& e : history)
        dispatch(e); // the handlers take each answer once, for the trial in flight
      if (after)
        after();
    },
    [this](const caf::error& err) {
      fail("cannot read the records of " + trial_session() + ": " + describe(err));
    });
}

void tpu_session_state::on_timeout(int step) {
  if (step != step_)
    return; // that step is over
  const auto trial = "trial " + std::to_string(current_.index);
  const auto limit = " within " + std::to_string(opts.step_timeout.count()) + " s";
  switch (phase) {
    case tpu_phase::simulating:
      return fail("paratune-tpu-sim did not finish " + trial + limit);
    case tpu_phase::diagnosing:
      // The bus may have lost the answers: the pool has them if they came.
      return read_back([this, step, trial, limit] {
        if (step == step_)
          fail((diagnosis_ ? "no proposals for " : "no diagnosis of ") + trial + limit);
      });
    case tpu_phase::recording:
      return fail("the optimization ledger did not take the improvement of " + trial + limit);
    case tpu_phase::ending:
      return;
  }
}

void tpu_session_state::finish(session_state end) {
  if (phase == tpu_phase::ending)
    return;
  enter(tpu_phase::ending);
  // The report is the session's last record: tune and report read it from
  // the pool, and the listener hears only that the session ended.
  store(wire::make_envelope(opts.id, 0, end_of(end, trials, best_)),
        [this, end](uint64_t) {
          self->send(listener, done_atom_v, opts.id, end, std::string());
          self->quit();
        },
        [this](const caf::error& err) {
          phase = tpu_phase::recording; // fail() ends a session that is not ending yet
          fail("cannot store the session's end: " + describe(err));
        });
}

void tpu_session_state::fail(const std::string& reason) {
  if (phase == tpu_phase::ending)
    return;
  enter(tpu_phase::ending);
  process_.reset(); // stops a simulator that still runs
  spdlog::error("tpu session {} failed: {}", opts.id, reason);
  self->send(listener, done_atom_v, opts.id, session_state::failed, reason);
  self->quit(caf::make_error(ec::session_failure, reason));
}

caf::behavior tpu_session(caf::stateful_actor<tpu_session_state>* self, agent_deps deps,
                          bus_bridge* bridge, tpu_session_options options, caf::actor listener) {
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
    [=](tick_atom, int step) { self->state.on_timeout(step); },
    [=](agent_down_atom, const std::string& agent, const std::string& reason) {
      self->state.fail("the " + agent + " agent died: " + reason);
    },
  };
}

} // namespace paratune
