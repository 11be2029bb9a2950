#include "core/model_flops_utilization.hpp"

#include <cmath>
#include <cstdio>

namespace paratune {

double mfu_peak_tflops(const device_spec& device) { return device.peak_tflops_16; }

double model_flops_utilization(double tflops_per_gpu, double peak_tflops) {
  return peak_tflops > 0 ? tflops_per_gpu / peak_tflops : 0;
}

double model_flops_utilization(double tflops_per_gpu, const device_spec& device) {
  return model_flops_utilization(tflops_per_gpu, mfu_peak_tflops(device));
}

std::string mfu_text(double mfu) {
  if (!std::isfinite(mfu) || mfu <= 0)
    return "-";
  char out[32];
  std::snprintf(out, sizeof out, "%.1f%%", 100 * mfu);
  return out;
}

} // namespace paratune
