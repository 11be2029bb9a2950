#pragma once

#include <string>

namespace paratune {

/// What a trial's metric series measures: from its Megatron-LM lines (the
/// first four) or from its GPUs' dcgm-exporter (the rest).
enum class trial_metric {
  tflops_per_gpu,          ///< "throughput per GPU (TFLOP/s/GPU)" of each iteration line
  iteration_ms,            ///< "elapsed time per iteration (ms)"
  loss,                    ///< "lm loss"
  max_reserved_mib,        ///< a memory line's "max reserved" (per rank)
  gpu_utilization_pct,     ///< DCGM_FI_DEV_GPU_UTIL
  tensor_active,           ///< DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, a 0..1 ratio
  graphics_engine_active,  ///< DCGM_FI_PROF_GR_ENGINE_ACTIVE, a 0..1 ratio
  framebuffer_used_mib,    ///< DCGM_FI_DEV_FB_USED
  framebuffer_free_mib,    ///< DCGM_FI_DEV_FB_FREE
  power_w,                 ///< DCGM_FI_DEV_POWER_USAGE
  sm_clock_mhz,            ///< DCGM_FI_DEV_SM_CLOCK
};

/// Every trial_metric, in declaration order.
inline constexpr trial_metric all_trial_metrics[] = {
  trial_metric::tflops_per_gpu,         trial_metric::iteration_ms,
  trial_metric::loss,                   trial_metric::max_reserved_mib,
  trial_metric::gpu_utilization_pct,    trial_metric::tensor_active,
  trial_metric::graphics_engine_active, trial_metric::framebuffer_used_mib,
  trial_metric::framebuffer_free_mib,   trial_metric::power_w,
  trial_metric::sm_clock_mhz,
};

/// "tflops_per_gpu", "power_w", ...: its word in stored records.
const char* to_string(trial_metric m);
bool parse_trial_metric(const std::string& text, trial_metric& out);
/// "TFLOP/s", "ms", "MiB", "%", "ratio", "W", "MHz", "" (loss).
const char* unit_of(trial_metric m);

} // namespace paratune
