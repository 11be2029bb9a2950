#pragma once

#include "core/cluster_spec.hpp"

namespace paratune {

/// Constants of the performance model that belong to an accelerator type
/// rather than to a spec sheet: how close its kernels and links get to the
/// peaks, and what the runtime costs in memory. Calibrated once per device
/// type on the published tables (docs/performance_model.md), never per row.
struct device_profile {
  double gemm_efficiency = 0.85;      ///< best dense GEMM fraction of peak (large, square)
  double gemm_dim_knee = 48;          ///< a GEMM dimension this small halves its efficiency
  double gemm_half_flops = 2e9;       ///< a GEMM of this many FLOPs runs at half efficiency (tails, launch)
  double attention_efficiency = 0.6;  ///< flash attention fraction of peak
  double hbm_efficiency = 0.8;        ///< element-wise kernels' fraction of HBM bandwidth
  double kernel_overhead_s = 4e-6;    ///< launch + tail per kernel
  double scale_up_efficiency = 0.75;  ///< NCCL bus bandwidth / link bandwidth, NVLink/ICI
  double scale_out_efficiency = 0.85; ///< same for IB/DCN
  double overlap_slowdown = 0.2;      ///< compute time lost per second of overlapped comm
  /// Host time to dispatch one layer's forward pass (its backward: twice).
  /// A floor under each stage's micro-batch: small layers wait for the host.
  double host_layer_forward_s = 0.0;
  double iteration_overhead_s = 0.0;  ///< data loading, logging, timers per iteration
  double context_mib = 1500;          ///< CUDA context, NCCL communicators, workspaces
  double fragmentation = 0.12;        ///< caching-allocator slack, fraction of activations
};

/// The profile of `d`, chosen by its name (A100, H100, H200, TPU v5e/v5p/v6e);
/// unknown devices get the A100 constants.
const device_profile& profile_for(const device_spec& d);

} // namespace paratune
