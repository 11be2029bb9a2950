#include "core/perf/gemm_efficiency.hpp"

#include <algorithm>

namespace paratune {

kernel_target make_kernel_target(const device_spec& d, const device_profile& prof,
                                 precision p, const perf_calibration& cal) {
  kernel_target t;
  t.peak_flops = d.peak_tflops(p) * 1e12;
  t.hbm_bytes_per_s = d.hbm_gbps * 1e9;
  t.gemm_efficiency = std::min(1.0, prof.gemm_efficiency * cal.gemm_efficiency_scale);
  t.dim_knee = prof.gemm_dim_knee * cal.gemm_size_shift;
  t.half_flops = prof.gemm_half_flops * cal.gemm_size_shift;
  t.attention_efficiency =
      std::min(1.0, prof.attention_efficiency * cal.gemm_efficiency_scale);
  t.hbm_efficiency = prof.hbm_efficiency;
  t.kernel_overhead_s = prof.kernel_overhead_s;
  // FP8 GEMMs cannot use their full peak on transformer shapes: the
  // casts and amax bookkeeping eat part of the gain.
  if (p == precision::fp8 && d.peak_tflops_fp8 > 0)
    t.gemm_efficiency *= 0.8;
  return t;
}

double gemm_efficiency(const kernel_target& t, double m, double n, double k,
                       double batch) {
  const double knee = t.dim_knee;
  const double flops = 2 * m * n * k * batch;
  return t.gemm_efficiency * flops / (flops + t.half_flops) * (m / (m + knee))
         * (n / (n + knee)) * (k / (k + knee));
}

double gemm_time(const kernel_target& t, double m, double n, double k) {
  if (m <= 0 || n <= 0 || k <= 0)
    return 0;
  const double compute = 2 * m * n * k / (t.peak_flops * gemm_efficiency(t, m, n, k));
  const double traffic = 2 * (m * k + k * n + m * n) / (t.hbm_bytes_per_s * t.hbm_efficiency);
  return std::max(compute, traffic) + t.kernel_overhead_s;
}

gemm_pass_times gemm_pass(const kernel_target& t, double m, double n, double k) {
  return {gemm_time(t, m, n, k), gemm_time(t, m, k, n) + gemm_time(t, k, n, m)};
}

double memory_time(const kernel_target& t, double bytes, int kernels) {
  return bytes / (t.hbm_bytes_per_s * t.hbm_efficiency)
         + kernels * t.kernel_overhead_s;
}

} // namespace paratune
