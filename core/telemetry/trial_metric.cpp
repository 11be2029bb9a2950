#include "core/telemetry/trial_metric.hpp"



namespace paratune {

const char* to_string(trial_metric m) {
  switch (m) {
    case trial_metric::tflops_per_gpu: return "tflops_per_gpu";
    case trial_metric::iteration_ms: return "iteration_ms";
    case trial_metric::loss: return "loss";
    case trial_metric::max_reserved_mib: return "max_reserved_mib";
    case trial_metric::gpu_utilization_pct: return "gpu_utilization_pct";
    case trial_metric::tensor_active: return "tensor_active";
    case trial_metric::graphics_engine_active: return "graphics_engine_active";
    case trial_metric::framebuffer_used_mib: return "framebuffer_used_mib";
    case trial_metric::framebuffer_free_mib: return "framebuffer_free_mib";
    case trial_metric::power_w: return "power_w";
    case trial_metric::sm_clock_mhz: return "sm_clock_mhz";
  }
  return "loss";
}

bool parse_trial_metric(const std::string& text, trial_metric& out) {
  for (auto m : all_trial_metrics)
    if (text == to_string(m)) {
      out = m;
      return true;
    }
  return false;
}

const char* unit_of(trial_metric m) {
  switch (m) {
    case trial_metric::tflops_per_gpu: return "TFLOP/s";
    case trial_metric::iteration_ms: return "ms";
    case trial_metric::loss: return "";
    case trial_metric::max_reserved_mib:
    case trial_metric::framebuffer_used_mib:
    case trial_metric::framebuffer_free_mib: return "MiB";
    case trial_metric::gpu_utilization_pct: return "%";
    case trial_metric::tensor_active:
    case trial_metric::graphics_engine_active: return "ratio";
    case trial_metric::power_w: return "W";
    case trial_metric::sm_clock_mhz: return "MHz";
  }
  return "";
}

} // namespace paratune
