#include "core/perf/perf_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/model_flops_utilization.hpp"
#include "core/perf/flops.hpp"
#include "core/perf/memory_model.hpp"
#include "core/perf/perf_context.hpp"
#include "core/perf/time_model.hpp"

namespace paratune {

namespace {

double total(const time_breakdown& t) {
  return t.compute_s + t.recompute_s + t.tp_comm_s + t.dp_comm_s + t.pp_comm_s
         + t.ep_comm_s + t.cp_comm_s + t.bubble_s + t.optimizer_s + t.other_s;
}

const char* largest_part(const time_breakdown& t) {
  const std::pair<const char*, double> parts[] = {
      {"compute", t.compute_s},     {"recompute", t.recompute_s},
      {"tp_comm", t.tp_comm_s},     {"dp_comm", t.dp_comm_s},
      {"pp_comm", t.pp_comm_s},     {"ep_comm", t.ep_comm_s},
      {"cp_comm", t.cp_comm_s},     {"bubble", t.bubble_s},
      {"optimizer", t.optimizer_s}, {"other", t.other_s}};
  const auto* best = std::max_element(
      std::begin(parts), std::end(parts),
      [](const auto& a, const auto& b) { return a.second < b.second; });
  return best->first;
}

void fill_memory(const perf_context& x, const cluster_spec& cluster,
                 perf_prediction& out) {
  out.stages.reserve(x.pp);
  for (int i = 0; i < x.pp; ++i)
    out.stages.push_back(stage_memory(x, i));
  out.peak = *std::max_element(
      out.stages.begin(), out.stages.end(),
      [](const auto& a, const auto& b) { return a.total_mib < b.total_mib; });
  out.peak_memory_mib = out.peak.total_mib;
  out.memory_limit_mib = cluster.memory_mib();
  out.memory_band = measured_memory_error;
  out.memory = judge_memory(out.peak_memory_mib, out.memory_limit_mib, out.memory_band);
  out.fits = out.memory != memory_verdict::does_not_fit;
}

void fill_rates(const perf_context& x, const cluster_spec& cluster, precision p,
                perf_prediction& out) {
  const iteration_flops f = count_flops(x);
  const double t = out.iteration_time_s;
  const double gpus = x.world;
  const double peak = cluster.device.peak_tflops(p) * 1e12;
  const double per_gpu = 1 / (t * gpus * 1e12); // FLOPs per iteration -> TFLOP/s per GPU
  out.peak_tflops = mfu_peak_tflops(cluster.device);
  out.tflops_per_gpu = f.model * per_gpu;
  out.mfu = model_flops_utilization(out.tflops_per_gpu, out.peak_tflops);
  out.mfu_causal = model_flops_utilization(f.model_causal * per_gpu, out.peak_tflops);
  out.mfu_full_attention = f.model / (t * gpus * peak);
  out.hardware_tflops_per_gpu = f.hardware * per_gpu;
  out.hfu = model_flops_utilization(out.hardware_tflops_per_gpu, out.peak_tflops);
  out.kernel_utilization = f.executed_hardware / (t * gpus * peak);
  out.tokens_per_s_per_gpu = x.gbs * x.seq / (t * gpus);
}

} // namespace

perf_prediction predict(const model_spec& m, const cluster_spec& cluster,
                        int world_size, const training_config& c, precision p,
                        const perf_calibration& cal) {
  const perf_context x = make_context(m, cluster, world_size, c, p, cal);
  perf_prediction out;
  fill_memory(x, cluster, out);
  out.time = time_iteration(x);
  const double base = total(out.time);
  const double straggler = std::max(1.0, cal.straggler);
  out.time.other_s += base * (straggler - 1);
  out.iteration_time_s = base * straggler;
  fill_rates(x, cluster, p, out);
  out.limiting_factor = out.fits ? largest_part(out.time) : "memory";
  return out;
}

std::string impossible_result(const perf_prediction& p) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!positive(p.iteration_time_s))
    return "iteration time " + std::to_string(p.iteration_time_s) + " s";
  if (!positive(p.mfu))
    return "MFU " + std::to_string(p.mfu);
  if (!positive(p.kernel_utilization) || p.kernel_utilization > 1)
    return "kernel utilization " + std::to_string(p.kernel_utilization);
  if (!positive(p.peak_memory_mib))
    return "peak memory " + std::to_string(p.peak_memory_mib) + " MiB";
  return "";
}

} // namespace paratune
