#pragma once

#include "core/perf/device_profile.hpp"
#include "core/perf/perf_model.hpp"

namespace paratune {

/// The hardware a kernel runs on, in the units the kernel models need.
struct kernel_target {
  double peak_flops = 0;          ///< FLOP/s of the compute precision
  double hbm_bytes_per_s = 0;     ///< HBM bandwidth, bytes/s
  double gemm_efficiency = 0;     ///< calibrated best GEMM efficiency
  double dim_knee = 0;            ///< size where a GEMM dimension halves efficiency
  double half_flops = 0;          ///< GEMM FLOPs where the size term halves efficiency
  double attention_efficiency = 0;
  double hbm_efficiency = 0;
  double kernel_overhead_s = 0;
};

kernel_target make_kernel_target(const device_spec& d, const device_profile& prof,
                                 precision p, const perf_calibration& cal);

/// Efficiency (fraction of peak) of one local GEMM C[m,n] = A[m,k] B[k,n].
/// Each small dimension costs efficiency because tiles go unfilled and the
/// arithmetic intensity drops, and a small GEMM cannot fill every SM for
/// long enough to amortise its wave tail:
/// eta = eta_max * F / (F + F_half) * prod(d / (d + knee)), F = 2 m n k.
/// `batch` counts the independent GEMMs one batched kernel runs together.
double gemm_efficiency(const kernel_target& t, double m, double n, double k,
                       double batch = 1);

/// Seconds of one GEMM: the slower of its compute and its HBM traffic
/// (2-byte operands), plus the launch overhead.
double gemm_time(const kernel_target& t, double m, double n, double k);

/// Forward GEMM plus its two backward GEMMs (data grad [m,k] = [m,n][n,k],
/// weight grad [k,n] = [k,m][m,n]), each with its own shape.
struct gemm_pass_times {
  double forward_s = 0;
  double backward_s = 0;
};
gemm_pass_times gemm_pass(const kernel_target& t, double m, double n, double k);

/// Seconds to stream `bytes` through HBM in element-wise kernels.
double memory_time(const kernel_target& t, double bytes, int kernels);

} // namespace paratune
