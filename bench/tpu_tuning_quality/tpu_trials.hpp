#pragma once

// One TPU tuning job of the benchmark and the trials run on it: the
// experiment (an ASAP scenario or a held-out variant), its mesh space, the
// optimum under the hidden truth, and a runner that "runs" a mesh through
// paratune-tpu-sim's code in process (sim/tpu/simulated_run.hpp), as the
// TPU session runs the simulator per trial.
//
// Trials are logged as the GPU bench's trial_record (trial_runner.hpp),
// so that its metrics (metrics.hpp) score them unchanged: TFLOP/s per chip
// stands where TFLOP/s per GPU stands there, measured (with the
// simulator's 1% noise) and true.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/tpu_tuning_quality/tpu_reality.hpp"
#include "bench/tuning_quality/trial_runner.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/tpu/mesh_planner.hpp"
#include "sim/tpu/simulated_run.hpp"

namespace paratune::bench {

/// One trial of a mesh: the record the metrics read, the mesh, and the
/// simulated run (its profile is what paratune diagnoses).
struct tpu_trial {
  tpu_mesh mesh;
  trial_record record;
  tpusim::tpu_run run;
  double step_ms = 0;  ///< measured, as the simulator prints it; 0 when it failed
};

using tpu_trial_log = std::vector<tpu_trial>;

/// Chip time per trial: MaxText's start-up and compilation, then the
/// profiled steps; a run refused or out of memory stops during start-up.
constexpr double tpu_startup_s = 180;
constexpr double tpu_failed_start_s = 60;
constexpr int tpu_trial_steps = 20;

/// A TPU tuning job: the experiment, every mesh of the planner's space
/// that starts (sizes divide, MaxText accepts it), and, per cluster seed,
/// the best true throughput among those that fit.
struct tpu_scenario {
  std::string name;
  std::string group;  ///< "asap" or "held-out"
  experiment_spec exp;
  std::vector<tpu_mesh> space;  ///< planner meshes that start
  int planner_meshes = 0;       ///< planner meshes, startable or not
};

class tpu_runner {
public:
  tpu_runner(const tpu_scenario& s, tpu_reality reality, std::uint64_t seed)
      : s_(s), reality_(reality), seed_(seed) {}

  /// Whether `mesh` gets past start-up checks that need no run: sizes that
  /// divide the job and MaxText's rules (what random search and the peers
  /// are spared, as Megatron's rules are on GPU).
  bool starts(const tpu_mesh& mesh) const {
    const auto r = tpusim::simulate_tpu_run(with_mesh(mesh), mesh, seed_, 1);
    return !r.refused_by && (r.oom || r.error.empty());
  }

  tpu_trial run(const tpu_mesh& mesh) const {
    tpu_trial t;
    t.mesh = mesh;
    t.run = tpusim::simulate_tpu_run(with_mesh(mesh), mesh, seed_, 3);
    auto& rec = t.record;
    rec.outcome.status = t.run.error.empty() ? trial_status::succeeded : trial_status::failed;
    if (!t.run.error.empty()) {
      rec.outcome.failure = t.run.oom ? failure_kind::oom : failure_kind::config_invalid;
      rec.wall_s = tpu_failed_start_s;
      return t;
    }
    const double f = step_factor(reality_, s_.name, seed_, mesh);
    t.run.profile.step_time_ms *= f;
    t.run.truth.step_s *= f;
    t.run.truth.tflops_per_chip /= f;
    t.step_ms = t.run.profile.step_time_ms;
    const double flops = t.run.truth.model_flops_per_chip;
    rec.outcome.tflops_per_gpu = flops / (t.step_ms / 1000) / 1e12;
    rec.true_tflops = t.run.truth.tflops_per_chip;
    rec.wall_s = tpu_startup_s + tpu_trial_steps * t.step_ms / 1000;
    return t;
  }

  /// The job under `mesh`, as the session hands each trial's experiment to
  /// the Analyzer (the file with its mesh replaced).
  experiment_spec with_mesh(const tpu_mesh& mesh) const {
    auto e = s_.exp;
    e.mesh = parse_mesh(to_string(mesh));
    return e;
  }

  /// The best true throughput (TFLOP/s per chip) over the space, and its mesh.
  std::pair<double, tpu_mesh> optimum() const {
    std::pair<double, tpu_mesh> best{0, {}};
    for (const auto& m : s_.space) {
      const auto t = run(m);
      if (t.record.true_tflops > best.first)
        best = {t.record.true_tflops, m};
    }
    return best;
  }

  const tpu_scenario& scenario() const { return s_; }
  std::uint64_t seed() const { return seed_; }

private:
  const tpu_scenario& s_;
  tpu_reality reality_;
  std::uint64_t seed_;
};

/// The scenario of experiment `exp`: its startable planner meshes.
inline tpu_scenario make_tpu_scenario(std::string name, std::string group, experiment_spec exp) {
  tpu_scenario s;
  s.name = std::move(name);
  s.group = std::move(group);
  s.exp = std::move(exp);
  const auto all = planner_ici_meshes(s.exp.model, s.exp.slice.chips_per_slice());
  s.planner_meshes = int(all.size());
  const tpu_runner probe(s, tpu_reality::simulated, 1);
  for (const auto& m : all)
    if (probe.starts(m))
      s.space.push_back(m);
  return s;
}

/// The trial records of a log, for the metrics.
inline std::vector<trial_record> records_of(const tpu_trial_log& log) {
  std::vector<trial_record> out;
  for (const auto& t : log)
    out.push_back(t.record);
  return out;
}

} // namespace paratune::bench
