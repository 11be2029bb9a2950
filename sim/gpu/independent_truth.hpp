#pragma once

// A hidden truth that owes nothing to paratune's performance model: a
// roofline of the layer's GEMMs with cuBLAS tile and wave quantisation,
// NCCL collectives whose algorithm switches with the message size, a
// 1F1B pipeline, an optimizer bound by HBM bandwidth, and an activation
// memory estimate of its own with allocator fragmentation that turns into a
// cliff near the device limit. bench_tuning_quality --reality independent
// scores every strategy against it, so a lead that only holds where the
// truth is a perturbed copy of the predictor shows here.
//
// Only Megatron's reported-FLOPs formula is shared with core/perf (the
// TFLOP/s a run prints are counted that way whatever the hardware does).

#include <cstdint>
#include <string>

#include "sim/gpu/simulated_cluster.hpp"

namespace paratune {

/// The hardware's character, drawn once per name (deterministic).
struct independent_hardware {
  double gemm_peak_share = 0.75;   ///< share of the device peak a large, full-wave GEMM reaches
  double gemm_half_size = 256;     ///< inner dimension at which a GEMM runs at half that share
  double tile_m = 128, tile_n = 256; ///< the cuBLAS tile chosen for large GEMMs
  double sms = 108;                ///< streaming multiprocessors
  double nccl_switch_bytes = 1 << 20; ///< below: low-latency protocol, above: ring Simple
  double ll_bandwidth_share = 0.45;  ///< low-latency protocol's share of the link bandwidth
  double link_efficiency = 0.8;    ///< bus bandwidth reached by the ring
  double grad_overlap = 0.7;       ///< share of the DP gradient reduce hidden by --overlap-grad-reduce
  double kernel_launch_s = 6e-6;   ///< per kernel launch, not hidden at small shapes
  double fixed_s = 0.03;           ///< per iteration: data loader, logging, timers
  double context_mib = 2500;       ///< CUDA context, NCCL buffers, cuBLAS workspaces
  double fragmentation = 0.05;     ///< activation share lost to fragmentation per micro-batch in flight
  double cliff_share = 0.93;       ///< device share beyond which the allocator thrashes
  double cliff_slowdown = 0.35;    ///< time x (1 + this) at a full device
};

independent_hardware independent_hardware_of(const std::string& cluster_name);

/// What `c` truly does on the independent hardware of `cluster` (drawn from
/// cluster.name). Fills the same record the perturbed-model truth fills:
/// time breakdown, per-stage memory, TFLOP/s as Megatron prints them.
simulated_outcome simulate_independent(const model_spec& m, const cluster_spec& cluster,
                                       int world_size, const training_config& c, precision p);

} // namespace paratune
