#pragma once

// The strategies of the TPU tuning benchmark, each a sequence of mesh
// trials on one job (a budget of B is the first B trials: no strategy looks
// at its budget).
//
// paratune is the TPU session's own decision path, in process: each trial
// "runs" through the simulator's code and writes the Xprof tool outputs
// the simulator writes, the Analyzer reads them back (gather_evidence,
// analyze_job) and the Proposal step ranks its three proposals
// (propose_for); the first trial is first_mesh_trial(), the next ones
// next_mesh_trial() over the planner's ranking, the best run's proposals
// and the latest ones, exactly as actors/tpu_session.cpp decides. The session's optimization ledger only adds citations and
// confidence, never reorders proposals, so the bench passes none.

#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "bench/tpu_tuning_quality/tpu_trials.hpp"
#include "bench/tuning_quality/peer_drive.hpp"
#include "core/diagnosis/mesh_calibration_fit.hpp"
#include "core/diagnosis/next_mesh_trial.hpp"
#include "sim/tpu/xprof_writer.hpp"

namespace paratune::bench {

/// paratune's TPU loop; `profile_dir` is where each trial's profile is
/// written and read back (one trial at a time).
inline tpu_trial_log run_tpu_paratune(const tpu_runner& runner, int budget,
                                      const std::filesystem::path& profile_dir) {
  const auto& exp = runner.scenario().exp;
  tpu_trial_log log;
  std::vector<std::vector<mesh_step>> sets;  // per trial, empty when not diagnosed
  std::vector<mesh_step> latest;             // the latest non-empty one
  std::vector<tpu_mesh> tried;
  auto planned = planned_mesh_steps(exp, std::size_t(budget));
  std::vector<mesh_calibration> fits;  // what each diagnosed run says of the model
  int best = -1;
  tpu_mesh mesh = first_mesh_trial(exp, planned).mesh;
  while (int(log.size()) < budget) {
    tried.push_back(mesh);
    log.push_back(runner.run(mesh));
    const auto& t = log.back();
    std::vector<mesh_step> steps;
    if (t.record.outcome.status == trial_status::succeeded) {
      std::filesystem::remove_all(profile_dir);
      write_xprof_dir(to_xprof_profile(t.run.profile), profile_dir, "");
      evidence_request r;
      r.xprof = profile_dir.string();
      auto evidence = gather_evidence(r);
      const auto trial_exp = runner.with_mesh(mesh);
      const auto report = analyze_job(trial_exp, evidence);
      if (auto fit = fit_mesh_calibration(trial_exp, evidence.kpis.step_time_ms.value_or(0),
                                          report.time_by_class)) {
        fits.push_back(*fit);
        planned = planned_mesh_steps(exp, std::size_t(budget), combine_calibrations(fits));
      }
      const auto set = propose_for(trial_exp, report, evidence.kpis.step_time_ms.value_or(0), {},
                                   {});
      for (const auto& p : set.proposals)
        if (p.mesh)
          steps.push_back({*p.mesh, p.title, p.exploratory});
      if (!set.proposals.empty())
        latest = steps;
      if (best < 0 || t.step_ms < log[best].step_ms)
        best = int(log.size()) - 1;
    }
    sets.push_back(std::move(steps));
    const auto next = next_mesh_trial(planned, best >= 0 ? &sets[best] : nullptr, latest, tried);
    if (!next)
      break;  // the session ends exhausted
    mesh = next->mesh;
  }
  return log;
}

/// Random search: distinct meshes drawn uniformly from those that start.
/// No model, no memory screen.
inline tpu_trial_log run_tpu_random(const tpu_runner& runner, int budget, std::uint64_t seed) {
  auto order = runner.scenario().space;
  std::mt19937_64 rng(mix64(seed ^ 0x72616e646f6dULL));
  std::shuffle(order.begin(), order.end(), rng);
  tpu_trial_log log;
  for (int i = 0; i < budget && i < int(order.size()); ++i)
    log.push_back(runner.run(order[i]));
  return log;
}

/// Predict-then-grid over the mesh planner (`paratune plan -e`): every
/// mesh ranked by the mesh model behind its HBM screen, run best first
/// without feedback; a failed run is skipped for the next.
inline tpu_trial_log run_tpu_model_grid(const tpu_runner& runner, int budget) {
  const auto& exp = runner.scenario().exp;
  mesh_plan_request req{exp.model, exp.cluster, exp.slice, exp.workload, std::size_t(budget), {}};
  tpu_trial_log log;
  for (const auto& e : plan_meshes(req).top)
    if (int(log.size()) < budget)
      log.push_back(runner.run(e.prediction.ici));
  return log;
}

/// One change at a time: coordinate descent over pairs of mesh axes, as
/// an expert tunes a mesh by hand. From the job's mesh, every other split
/// of two axes' product between them (the rest held) is tried, then the
/// search moves to the best measured and takes the next pair; sweeps
/// repeat until a whole sweep moves nothing. Meshes that do not start are
/// skipped without a trial. No model.
inline tpu_trial_log run_tpu_one_change(const tpu_runner& runner, int budget) {
  const auto& s = runner.scenario();
  std::vector<mesh_axis> axes{mesh_axis::data, mesh_axis::fsdp, mesh_axis::seq, mesh_axis::model};
  if (s.exp.model.is_moe())
    axes.insert(axes.end() - 1, mesh_axis::expert);
  tpu_trial_log log;
  std::set<std::string> tried;
  auto measured = [&](const tpu_mesh& m) {
    tried.insert(mesh_key(m));
    log.push_back(runner.run(m));
    return log.back().record.outcome.tflops_per_gpu;
  };
  tpu_mesh best = s.exp.mesh;
  double best_tflops = measured(best);
  for (bool moved = true; moved && int(log.size()) < budget;) {
    moved = false;
    for (std::size_t i = 0; i < axes.size(); ++i)
      for (std::size_t j = i + 1; j < axes.size(); ++j) {
        const tpu_mesh from = best;
        const int product = from.at(axes[i]) * from.at(axes[j]);
        for (int a = 1; a <= product; ++a) {
          if (product % a != 0)
            continue;
          tpu_mesh m = from;
          m.set(axes[i], a);
          m.set(axes[j], product / a);
          if (tried.count(mesh_key(m)) || !runner.starts(m))
            continue;
          if (int(log.size()) >= budget)
            return log;
          const double t = measured(m);
          if (t > best_tflops) {
            best_tflops = t;
            best = m;
            moved = true;
          }
        }
      }
  }
  return log;
}

/// The optuna-tpe peer's space: every planner axis but data, each over
/// the divisors of the slice; data takes the chips the others leave, as
/// MaxText's auto axis (-1) does. A combination that does not divide the
/// slice, or does not start, is refused at no trial cost.
inline std::map<std::string, std::vector<std::string>> tpu_peer_space(const tpu_scenario& s) {
  std::vector<std::string> sizes;
  const int chips = s.exp.slice.chips_per_slice();
  for (int d = 1; d <= chips; ++d)
    if (chips % d == 0)
      sizes.push_back(std::to_string(d));
  std::map<std::string, std::vector<std::string>> space{
      {"fsdp", sizes}, {"seq", sizes}, {"model", sizes}};
  if (s.exp.model.is_moe())
    space["expert"] = sizes;
  return space;
}

/// The optuna-tpe run and how it ended.
struct tpu_peer_run {
  tpu_trial_log log;
  peer_drive end;
};

inline tpu_peer_run run_tpu_peer(const tpu_runner& runner, int budget, std::uint64_t seed,
                                 const peer_options& opt) {
  tpu_peer_run out;
  const auto& s = runner.scenario();
  const int chips = s.exp.slice.chips_per_slice();
  const auto run = [&](const peer_ask& ask) {
    peer_trial t;
    tpu_mesh m;
    int others = 1;
    for (const auto& [key, value] : ask.config) {
      mesh_axis a{};
      parse_mesh_axis(key, a);
      m.set(a, std::stoi(value));
      others *= std::stoi(value);
    }
    if (chips % others != 0) {
      t.refused = true;
      return t;
    }
    m.set(mesh_axis::data, chips / others);
    if (!runner.starts(m)) {
      t.refused = true;
      return t;
    }
    out.log.push_back(runner.run(m));
    const auto& o = out.log.back().record.outcome;
    t.status = o.status == trial_status::succeeded ? tell_status::succeeded : tell_status::failed;
    t.value = o.tflops_per_gpu;
    return t;
  };
  out.end = drive_peer(tpu_peer_space(s), budget, seed, opt, run,
                       [&] { return int(out.log.size()); });
  return out;
}

} // namespace paratune::bench
