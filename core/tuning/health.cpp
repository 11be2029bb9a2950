#include "core/tuning/health.hpp"

#include <cstdio>

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

health_diagnosis diagnose_health(const trial_outcome& run) {
  const double gpu = run.gpu_util_pct;
  const double mem = run.memory_usage_pct();
  const int pp = run.config.pp;
  // A history without GPU utilization (OptiCo's table has none) must not
  // read as an idle GPU: the underutilization check needs a measurement.
  const bool gpu_known = gpu > 0;
  char facts[192];
  std::snprintf(facts, sizeof facts,
                "MFU %.3f, GPU busy %s, peak memory %.0f MiB (%.1f%% of %.0f MiB), PP %d",
                run.mfu, gpu_known ? (std::to_string(int(gpu + 0.5)) + "%").c_str() : "unknown",
                run.peak_memory_mib, mem, run.memory_limit_mib, pp);
  health_diagnosis d;
  if (gpu_known && gpu < 50 && mem < 70) {
    d.state = health_state::severely_underutilized;
    d.reasoning = std::string(facts) + ": GPU busy < 50% and memory < 70%, so "
                  "parallelism overhead dominates; reduce parallelism first.";
  } else if (pp > 1 && run.mfu < 0.5) {
    d.state = health_state::high_pp_overhead;
    d.reasoning = std::string(facts) + ": PP > 1 with MFU < 0.5, so the "
                  "pipeline bubble is the likely loss; reduce pipeline depth first.";
  } else if (mem > memory_bound_pct) {
    d.state = health_state::memory_bound;
    d.reasoning = std::string(facts) + ": memory > 95%, so relieve memory "
                  "pressure before anything else.";
  } else {
    d.state = health_state::performance_tune;
    d.reasoning = std::string(facts) + ": no overriding directive; standard "
                  "bottleneck tuning.";
  }
  return d;
}

} // namespace paratune
