#pragma once

#include "core/perf/perf_context.hpp"

namespace paratune {

/// FLOPs of one training iteration (forward + backward, all GPUs together).
struct iteration_flops {
  double model = 0;         ///< Megatron <= 0.15 / Korthikanti: non-causal attention
  double model_causal = 0;  ///< Megatron 0.16+ / MaxText: attention scores halved
  /// The model FLOPs the kernels run: flash attention skips the masked half
  /// of a causal score matrix (model_causal), unfused attention computes it
  /// whole (model). MFU counts these, so that it cannot pass the peak.
  double executed = 0;
  /// Model FLOPs plus the recomputed forward work, counted as `model` is
  /// (attention whole): never below `model`.
  double hardware = 0;
  double executed_hardware = 0;  ///< executed plus the recomputed work as the kernels run it
};

/// Megatron's num_floating_point_operations of the r0.8..0.15 era:
/// 12 B s L h^2 ((1 + g/a + s/h) q/h + (f/h) k gated + V/(2 L h)).
double model_flops_noncausal(const perf_context& x);

/// Fraction of the transformer layers whose forward runs twice.
double recomputed_layer_fraction(const perf_context& x);

iteration_flops count_flops(const perf_context& x);

} // namespace paratune
