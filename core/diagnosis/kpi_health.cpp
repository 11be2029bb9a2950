#include "core/diagnosis/kpi_health.hpp"

#include <fmt/format.h>

#include "core/diagnosis/plausibility.hpp"

namespace paratune {

namespace {

// Higher is better: ok at or above `ok`, bad below `bad`.
const char* rate_high(double v, double ok, double bad) {
  return v >= ok ? "ok" : v < bad ? "bad" : "warn";
}

// Lower is better: ok below `ok`, bad at or above `bad`.
const char* rate_low(double v, double ok, double bad) {
  return v < ok ? "ok" : v >= bad ? "bad" : "warn";
}

void add(std::vector<kpi_check>& out, const char* name, double v, const char* unit,
         const char* status, std::string note) {
  out.push_back({name, v, unit, status, std::move(note)});
}

void check_step(std::vector<kpi_check>& out, const kpi_evidence& k, const kpi_thresholds& t) {
  if (!k.step_time_ms)
    return;
  std::string note = "mean step time";
  const char* status = "info";
  if (k.step_time_stddev_ms && *k.step_time_ms > 0) {
    const double jitter = 100.0 * *k.step_time_stddev_ms / *k.step_time_ms;
    status = jitter >= t.jitter_warn ? "warn" : "ok";
    note = fmt::format("stddev {:.1f}% of the mean", jitter)
           + (jitter >= t.jitter_warn ? " (uneven steps: stragglers or input stalls)" : "");
  }
  add(out, "step_time", *k.step_time_ms, "ms", status, note);
}

// A rate no published run reaches is not good news but a miscount: its
// status says so instead of "ok" (the warning itself is the Analyzer's).
void check_flops(std::vector<kpi_check>& out, const kpi_evidence& k, const kpi_thresholds& t) {
  const auto finding = check_throughput(k, "");
  if (!finding.plausible) {
    add(out, "flops_utilization", *k.flops_utilization_percent, "%", "implausible",
        fmt::format("FLOP rate / peak; x{:.2f} beyond what any published run reaches (see "
                    "warnings)", finding.factor));
    return;
  }
  add(out, "flops_utilization", *k.flops_utilization_percent, "%",
      rate_high(*k.flops_utilization_percent, t.flops_ok, t.flops_bad),
      fmt::format("FLOP rate / peak; >= {:.0f}% is good for LLM training, < {:.0f}% is poor",
                  t.flops_ok, t.flops_bad));
}

void check_utilization(std::vector<kpi_check>& out, const kpi_evidence& k,
                       const kpi_thresholds& t) {
  if (k.duty_cycle_percent)
    add(out, "duty_cycle", *k.duty_cycle_percent, "%",
        rate_high(*k.duty_cycle_percent, t.duty_ok, t.duty_bad),
        fmt::format("device busy share; healthy >= {:.0f}%, below {:.0f}% the device waits for "
                    "input or the host", t.duty_ok, t.duty_bad));
  if (k.flops_utilization_percent)
    check_flops(out, k, t);
  if (k.hbm_bw_utilization_percent)
    add(out, "hbm_bw_utilization", *k.hbm_bw_utilization_percent, "%", "info",
        "HBM bandwidth / peak, whole program");
  if (k.tflops_per_device)
    add(out, "tflops_per_device", *k.tflops_per_device, "TFLOP/s", "info",
        "model FLOPs per device per second, as the job reports");
}

void check_waiting(std::vector<kpi_check>& out, const kpi_evidence& k, const kpi_thresholds& t) {
  if (k.comm_percent)
    add(out, "communication", *k.comm_percent, "%",
        rate_low(*k.comm_percent, t.comm_ok, t.comm_bad),
        fmt::format("collectives' share of device time; < {:.0f}% is low, >= {:.0f}% dominates",
                    t.comm_ok, t.comm_bad));
  if (k.exposed_comm_percent)
    add(out, "exposed_communication", *k.exposed_comm_percent, "%",
        rate_low(*k.exposed_comm_percent, t.comm_ok, t.comm_bad),
        "collectives with no computation running beside them");
  if (k.infeed_percent)
    add(out, "infeed", *k.infeed_percent, "%",
        rate_low(*k.infeed_percent, t.infeed_ok, t.infeed_bad), "time waiting for input");
  if (k.input_percent)
    add(out, "input", *k.input_percent, "%",
        rate_low(*k.input_percent, t.infeed_ok, t.infeed_bad),
        "data loading share of the iteration (batch-generator timer)");
  if (k.bubble_percent)
    add(out, "pipeline_bubble", *k.bubble_percent, "%",
        rate_low(*k.bubble_percent, t.bubble_ok, t.bubble_bad),
        "pipeline stages waiting for each other (send/receive timers)");
}

void check_memory(std::vector<kpi_check>& out, const kpi_evidence& k, const kpi_thresholds& t) {
  if (k.oom) {
    add(out, "memory", 100, "%", "bad", "out of memory: " + k.oom_message);
    return;
  }
  if (!k.memory_used_mib || !k.memory_limit_mib || *k.memory_limit_mib <= 0)
    return;
  const double pct = 100.0 * *k.memory_used_mib / *k.memory_limit_mib;
  add(out, "memory", pct, "%", rate_low(pct, t.memory_warn, t.memory_bad),
      fmt::format("peak {:.0f} MiB of {:.0f} MiB", *k.memory_used_mib, *k.memory_limit_mib));
}

} // namespace

std::vector<kpi_check> check_kpis(const kpi_evidence& k, const kpi_thresholds& t) {
  std::vector<kpi_check> out;
  check_step(out, k, t);
  check_utilization(out, k, t);
  check_waiting(out, k, t);
  check_memory(out, k, t);
  return out;
}

} // namespace paratune
