// A TPU run as Xprof would profile it: compute and memory-bound fusions at
// the utilisation the model implies, and collectives as XLA's asynchronous
// start/done pairs, where the done op carries the time the step waited.
#include "sim/tpu/simulated_run.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "core/tpu/maxtext_args.hpp"

namespace paratune::tpusim {

namespace {

std::uint64_t mix(std::uint64_t seed, const std::string& text) {
  return seed * 0x9E3779B97F4A7C15ULL ^ std::hash<std::string>{}(text);
}

double draw(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// Compute and memory-bound ops: one synthetic op per mesh op, split into a
// few pieces so that the op list looks like a real one.
void add_device_ops(const mesh_op& op, const cluster_spec& c, double step_s, int& id,
                    synthetic_profile& p) {
  const int pieces = op.bound_by == "Compute" ? 4 : 2;
  const double peak = c.device.peak_tflops_16 * 1e12, hbm = c.device.hbm_gbps * 1e9;
  for (int i = 0; i < pieces; ++i) {
    synthetic_op s;
    s.name = (op.category == "custom-call" ? "custom-call." : "fusion.") + std::to_string(++id);
    s.category = op.category;
    s.share = op.seconds / step_s / pieces;
    s.flops_utilization = op.seconds > 0 ? op.flops / (op.seconds * peak) : 0;
    s.hbm_utilization = op.seconds > 0 ? std::min(1.0, op.hbm_bytes / (op.seconds * hbm)) : 0;
    s.bound_by = op.bound_by;
    s.occurrences = std::max<long long>(1, op.occurrences / pieces);
    p.ops.push_back(s);
  }
}

void add_collective(const mesh_op& op, const cluster_spec& c, double step_s, int& id,
                    synthetic_profile& p) {
  const double hbm = c.device.hbm_gbps * 1e9;
  const std::string kind = op.category == "all-reduce-scatter fusion" ? "reduce-scatter"
                                                                       : op.category;
  synthetic_op start, done;
  start.name = kind + "-start." + std::to_string(++id);
  start.category = op.category;
  const double issue_s = std::min(0.02 * op.seconds, op.exposed_s);  // issuing the DMA
  start.share = issue_s / step_s;
  start.hbm_utilization = std::min(1.0, op.hbm_bytes / (std::max(1e-9, op.seconds) * hbm));
  start.bound_by = "HBM";
  start.occurrences = std::max<long long>(1, op.occurrences);
  done.name = kind + "-done." + std::to_string(id);
  done.category = op.category;
  done.share = (op.exposed_s - issue_s) / step_s;  // the step waits here
  done.bound_by = "HBM";
  done.hbm_utilization = 0.001;
  done.occurrences = start.occurrences;
  if (start.share > 0)
    p.ops.push_back(start);
  if (done.share > 0)
    p.ops.push_back(done);
}

} // namespace

mesh_calibration hidden_calibration(const experiment_spec& exp, std::uint64_t seed) {
  std::mt19937_64 rng(mix(seed, exp.model.name + "|" + exp.cluster.name));
  mesh_calibration cal;
  cal.compute_scale = draw(rng, 0.95, 1.3);
  cal.hbm_scale = draw(rng, 0.9, 1.3);
  cal.comm_scale = draw(rng, 0.85, 1.5);
  return cal;
}

tpu_run simulate_tpu_run(const experiment_spec& exp, const tpu_mesh& mesh, std::uint64_t seed,
                         int steps) {
  tpu_run run;
  // MaxText's own start-up checks first, on the overrides this run stands
  // for: a refused run stops with MaxText's exception, as train.py would.
  // The slice is the experiment's, whatever the mesh spans: MaxText sees
  // every chip it is given (jax.devices()).
  const maxtext_launch launch{exp.model, mesh, exp.dcn_mesh, exp.workload, exp.slice.chips()};
  const maxtext_target target{exp.slice.chips_per_slice(), exp.slice.num_slices,
                              exp.workload.global_batch};
  for (const auto& f : check_maxtext_overrides(render_maxtext_args(launch), target))
    if (f.refuses()) {
      run.error = f.printed();
      run.refused_by = f.rule;
      return run;
    }
  run.truth = predict_mesh(exp.model, exp.cluster, exp.slice, mesh, exp.dcn_mesh, exp.workload,
                           hidden_calibration(exp, seed));
  if (!run.truth.valid()) {
    run.error = "INVALID_ARGUMENT: " + run.truth.problems.front();
    return run;
  }
  if (!run.truth.memory.fits) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used %.2fG of "
                  "%.2fG hbm.",
                  run.truth.memory.total_gib, exp.cluster.device.hbm_gib);
    run.oom = true;
    run.error = buf;
    return run;
  }
  std::mt19937_64 rng(mix(seed, to_string(mesh)));
  auto& p = run.profile;
  p.device_type = exp.cluster.device.name;
  p.cores = exp.slice.chips();
  p.hosts = std::max(1, exp.slice.chips() / std::max(1, exp.cluster.devices_per_node));
  p.steps = steps;
  const double noise = draw(rng, 0.99, 1.01);
  const double infeed = 0.002;
  p.step_time_ms = run.truth.step_s * noise * (1 + infeed) * 1000;
  p.step_stddev_ms = p.step_time_ms * draw(rng, 0.002, 0.01);
  p.duty_cycle_percent = 100 * (1 - infeed);
  p.infeed_percent = 100 * infeed;
  p.peak_flop_gflops = exp.cluster.device.peak_tflops_16 * 1000;
  p.peak_hbm_gibps = exp.cluster.device.hbm_gbps * 1e9 / (1024.0 * 1024 * 1024);
  int id = 0;
  const double step_s = run.truth.step_s * (1 + infeed);
  for (const auto& op : run.truth.ops) {
    if (op.collective)
      add_collective(op, exp.cluster, step_s, id, p);
    else
      add_device_ops(op, exp.cluster, step_s, id, p);
  }
  return run;
}

} // namespace paratune::tpusim
