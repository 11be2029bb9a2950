#include "core/tuning/health.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace paratune {

const char* to_string(health_state s) {
  switch (s) {
    case health_state::severely_underutilized: return "SEVERELY_UNDERUTILIZED";
    case health_state::high_pp_overhead: return "HIGH_PP_OVERHEAD";
    case health_state::memory_bound: return "MEMORY_BOUND";
    case health_state::performance_tune: return "PERFORMANCE_TUNE";
  }
  return "PERFORMANCE_TUNE";
}

const char* directive_of(health_state s) {
  switch (s) {
    case health_state::severely_underutilized: return "REDUCE_PARALLELISM";
    case health_state::high_pp_overhead: return "REDUCE_PIPELINE_DEPTH";
    case health_state::memory_bound: return "RESOLVE_MEMORY_PRESSURE";
    case health_state::performance_tune: return "NONE";
  }
  return "NONE";
}

bool shows(health_state s, const trial_outcome& run) {
  const double mem = run.memory_usage_pct();
  switch (s) {
    case health_state::severely_underutilized:
      // A history without GPU utilization (OptiCo's table has none) must
      // not read as an idle GPU: the check needs a measurement.
      return run.gpu_util_pct > 0 && run.gpu_util_pct < underutilized_gpu_pct
             && mem < underutilized_memory_pct;
    case health_state::high_pp_overhead: return run.config.pp > 1 && run.mfu < pp_overhead_mfu;
    case health_state::memory_bound: return mem > memory_bound_pct;
    case health_state::performance_tune: return true;
  }
  return true;
}

health_diagnosis diagnose_health(const trial_outcome& run) {
  const double gpu = run.gpu_util_pct;
  const double mem = run.memory_usage_pct();
  const int pp = run.config.pp;
  const bool gpu_known = gpu > 0;
  char facts[192];
  std::snprintf(facts, sizeof facts,
                "MFU %.3f, GPU busy %s, peak memory %.0f MiB (%.1f%% of %.0f MiB), PP %d",
                run.mfu, gpu_known ? (std::to_string(int(gpu + 0.5)) + "%").c_str() : "unknown",
                run.peak_memory_mib, mem, run.memory_limit_mib, pp);
  health_diagnosis d;
  if (shows(health_state::severely_underutilized, run)) {
    d.state = health_state::severely_underutilized;
    d.reasoning = fmt::format("{}: GPU busy < {:g}% and memory < {:g}%, so parallelism overhead "
                              "dominates; reduce parallelism first.",
                              facts, underutilized_gpu_pct, underutilized_memory_pct);
  } else if (shows(health_state::high_pp_overhead, run)) {
    d.state = health_state::high_pp_overhead;
    d.reasoning = fmt::format("{}: PP > 1 with MFU < {:g}, so the pipeline bubble is the likely "
                              "loss; reduce pipeline depth first.",
                              facts, pp_overhead_mfu);
  } else if (shows(health_state::memory_bound, run)) {
    d.state = health_state::memory_bound;
    d.reasoning = fmt::format("{}: memory > {:g}%, so relieve memory pressure before anything "
                              "else.",
                              facts, memory_bound_pct);
  } else {
    d.state = health_state::performance_tune;
    d.reasoning = std::string(facts) + ": no overriding directive; standard "
                  "bottleneck tuning.";
  }
  return d;
}

} // namespace paratune
