#include "adapters/diagnosis/evidence_readers.hpp"

#include <algorithm>
#include <map>

#include "core/diagnosis/op_classes.hpp"
#include "core/diagnosis/plausibility.hpp"

namespace paratune {

namespace {

template <class T>
void fill(std::optional<T>& into, const std::optional<T>& from) {
  if (!into && from)
    into = from;
}

op_evidence from_xprof_op(const xprof_op& o) {
  op_evidence e;
  e.name = o.name;
  e.category = o.category;
  e.time_share = o.time_share;
  e.flops_utilization = o.flops_utilization;
  e.hbm_bw_utilization = o.hbm_bw_utilization;
  e.roofline_efficiency = o.roofline_efficiency;
  e.bound_by = o.bound_by;
  e.collective = looks_collective(o.name, o.category);
  e.occurrences = o.occurrences;
  e.raw_time_ps = o.raw_time_ps;
  return e;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Megatron timers, in ms per iteration, of the last report that has any.
std::map<std::string, double> last_timers(const megatron_log& log) {
  std::map<std::string, double> out;
  for (auto it = log.timers.rbegin(); it != log.timers.rend(); ++it) {
    if (it->iteration <= 0 || it->timers.empty())
      continue;
    for (const auto& t : it->timers)
      out[t.name] = t.max_ms;
    break;
  }
  return out;
}

bool has_any(const std::string& name, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (name.find(k) != std::string::npos)
      return true;
  return false;
}

void timer_kpis(const std::map<std::string, double>& timers, double step_ms, kpi_evidence& k) {
  if (timers.empty() || step_ms <= 0)
    return;
  double comm = 0, bubble = 0, input = 0;
  for (const auto& [name, ms] : timers) {
    if (has_any(name, {"all-reduce", "reduce-scatter", "all-gather", "grads-sync"}))
      comm += ms;
    else if (has_any(name, {"-recv", "-send"}))
      bubble += ms;
    else if (name == "batch-generator")
      input += ms;
  }
  k.comm_percent = 100 * std::min(1.0, comm / step_ms);
  k.exposed_comm_percent = k.comm_percent;  // Megatron times them on the critical path
  k.bubble_percent = 100 * std::min(1.0, bubble / step_ms);
  k.input_percent = 100 * std::min(1.0, input / step_ms);
}

// Steady-state iterations: skip the first logged interval (warm-up,
// compilation, loss-scale search) when there are more.
std::vector<const iteration_record*> steady_iterations(const megatron_log& log) {
  std::vector<const iteration_record*> out;
  for (const auto& r : log.iterations)
    if (r.elapsed_ms > 0)
      out.push_back(&r);
  if (out.size() > 2)
    out.erase(out.begin());
  return out;
}

} // namespace

diagnosis_evidence evidence_from_xprof(const xprof_profile& p, const std::string& source) {
  diagnosis_evidence e;
  const auto& k = p.kpis;
  e.platform = k.device_type.rfind("GPU", 0) == 0 ? device_platform::gpu : device_platform::tpu;
  e.device = k.device_type;
  e.kpis.step_time_ms = k.step_time_avg_ms;
  e.kpis.step_time_stddev_ms = k.step_time_stddev_ms;
  e.kpis.duty_cycle_percent = k.device_duty_cycle_percent;
  e.kpis.infeed_percent = k.infeed_percent;
  e.kpis.comm_percent = k.collectives_time_percent;
  if (!e.kpis.comm_percent && k.collectives_time_avg_ms && k.step_time_avg_ms
      && *k.step_time_avg_ms > 0)
    e.kpis.comm_percent = 100 * *k.collectives_time_avg_ms / *k.step_time_avg_ms;
  e.kpis.flops_utilization_percent = k.flops_utilization_percent;
  e.kpis.hbm_bw_utilization_percent = k.hbm_bw_utilization_percent;
  for (const auto& o : p.top_ops)
    e.ops.push_back(from_xprof_op(o));
  e.sources.push_back(source);
  e.partial = p.partial;
  e.warnings = p.warnings;
  return e;
}

diagnosis_evidence evidence_from_kineto(const kineto_trace& t, const std::string& source) {
  diagnosis_evidence e;
  e.platform = device_platform::gpu;
  for (const auto& d : t.devices)
    if (t.primary_device && d.id == *t.primary_device)
      e.device = d.name;
  e.kpis.step_time_ms = t.step_time_avg_ms;
  e.kpis.step_time_stddev_ms = t.step_time_stddev_ms;
  const auto& b = t.total;
  if (b.window_us > 0) {
    e.kpis.duty_cycle_percent = 100 * b.share(b.busy_us);
    e.kpis.comm_percent = 100 * b.share(b.comm_us);
    e.kpis.exposed_comm_percent = 100 * b.share(b.exposed_comm_us);
  }
  for (const auto& k : t.top_kernels) {
    op_evidence o;
    o.name = k.name;
    o.category = std::string(to_string(k.kind));
    o.time_share = k.share;
    o.collective = k.kind == gpu_activity_kind::communication;
    o.occurrences = k.count;
    o.raw_time_ps = k.total_us * 1e6;
    e.ops.push_back(std::move(o));
  }
  e.sources.push_back(source);
  e.partial = t.partial;
  e.warnings = t.warnings;
  return e;
}

diagnosis_evidence evidence_from_megatron(const megatron_log& log, const std::string& source) {
  diagnosis_evidence e;
  e.platform = device_platform::gpu;
  std::vector<double> elapsed, tflops;
  for (const auto* r : steady_iterations(log)) {
    elapsed.push_back(r->elapsed_ms);
    if (r->tflops_per_gpu)
      tflops.push_back(*r->tflops_per_gpu);
  }
  if (!elapsed.empty())
    e.kpis.step_time_ms = e.kpis.iteration_time_ms = median(elapsed);
  if (!tflops.empty())
    e.kpis.tflops_per_device = median(tflops);
  // Peak allocated is what the tensors needed; reserved adds the caching
  // allocator's spare blocks, which it would hand back before failing.
  for (const auto& m : log.memory) {
    const double used = m.max_allocated_mib > 0 ? m.max_allocated_mib : m.max_reserved_mib;
    e.kpis.memory_used_mib = std::max(e.kpis.memory_used_mib.value_or(0), used);
  }
  for (const auto& err : log.errors) {
    if (err.kind == log_error_kind::oom && !e.kpis.oom) {
      e.kpis.oom = true;
      e.kpis.oom_message = err.message.substr(0, 200);
    }
    if (e.warnings.size() < 5)
      e.warnings.push_back(std::string("log reports ") + to_string(err.kind) + " at line "
                           + std::to_string(err.line) + ": " + err.message.substr(0, 160));
  }
  const auto timers = last_timers(log);
  for (const auto& [name, ms] : timers)
    e.timers_ms.emplace_back(name, ms);
  timer_kpis(timers, e.kpis.step_time_ms.value_or(0), e.kpis);
  e.sources.push_back(source);
  e.partial = log.partial;
  if (log.iterations.empty() && !e.kpis.oom)
    e.warnings.push_back("the log has no iteration lines: no step time");
  return e;
}

void merge_evidence(diagnosis_evidence& into, const diagnosis_evidence& from) {
  auto& a = into.kpis;
  const auto& b = from.kpis;
  fill(a.step_time_ms, b.step_time_ms);
  fill(a.iteration_time_ms, b.iteration_time_ms);
  fill(a.step_time_stddev_ms, b.step_time_stddev_ms);
  fill(a.duty_cycle_percent, b.duty_cycle_percent);
  fill(a.infeed_percent, b.infeed_percent);
  fill(a.comm_percent, b.comm_percent);
  fill(a.exposed_comm_percent, b.exposed_comm_percent);
  fill(a.flops_utilization_percent, b.flops_utilization_percent);
  fill(a.hbm_bw_utilization_percent, b.hbm_bw_utilization_percent);
  fill(a.memory_used_mib, b.memory_used_mib);
  fill(a.memory_limit_mib, b.memory_limit_mib);
  fill(a.bubble_percent, b.bubble_percent);
  fill(a.input_percent, b.input_percent);
  fill(a.tflops_per_device, b.tflops_per_device);
  if (b.oom && !a.oom) {
    a.oom = true;
    a.oom_message = b.oom_message;
  }
  if (into.ops.empty())
    into.ops = from.ops;
  if (into.device.empty())
    into.device = from.device;
  into.timers_ms.insert(into.timers_ms.end(), from.timers_ms.begin(), from.timers_ms.end());
  into.sources.insert(into.sources.end(), from.sources.begin(), from.sources.end());
  into.warnings.insert(into.warnings.end(), from.warnings.begin(), from.warnings.end());
  into.partial = into.partial || from.partial;
}

void enrich_evidence(diagnosis_evidence& e, const experiment_spec& exp) {
  e.platform = exp.platform;
  auto& k = e.kpis;
  if (!k.memory_limit_mib && k.memory_used_mib)
    k.memory_limit_mib = exp.cluster.memory_mib();
  const double peak = exp.cluster.device.peak_tflops(exp.prec);
  if (!k.flops_utilization_percent && k.tflops_per_device && peak > 0)
    k.flops_utilization_percent = 100 * *k.tflops_per_device / peak;
  // What the hardware allows, for the Analyzer's plausibility check.
  if (peak > 0)
    k.peak_tflops_per_device = peak;
  if (const double floor = step_floor_ms(exp); floor > 0)
    k.step_floor_ms = floor;
  k.devices = exp.devices();
  if (e.device.empty())
    e.device = exp.cluster.device.name;
}

} // namespace paratune
