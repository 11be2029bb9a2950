#pragma once

#include "core/perf/perf_context.hpp"

namespace paratune {

/// Bytes per parameter of each state, following Megatron's distributed
/// optimizer table: bf16 18 = 2 + 4 + 12 (6 + 12/d sharded), fp16 20 =
/// 2 + 2 + 16 (4 + 16/d sharded). `shards` is the data-parallel size the
/// distributed optimizer divides the optimizer state by (1 without it).
/// `grad_bf16` (--grad-reduce-in-bf16) keeps bf16/fp8 runs' main grads in
/// bf16: 2 B instead of 4.
struct param_bytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double total() const { return weights + gradients + optimizer; }
};
param_bytes bytes_per_param(precision p, bool dist_opt, int shards, bool grad_bf16 = false);

/// Parameters one GPU of pipeline stage `stage` holds.
struct stage_params {
  double dense = 0;    ///< replicated over DP (x CP)
  double experts = 0;  ///< replicated over expert-DP
  /// The transformer layers' GEMM weights among them (dense and expert):
  /// what Transformer Engine casts to FP8. Embedding, output layer, norms
  /// and router stay in bf16.
  double gemm_weights = 0;
  double total() const { return dense + experts; }
};
stage_params params_on_stage(const perf_context& x, int stage);

/// Activation bytes one transformer layer keeps for one micro-batch on one
/// GPU when nothing is recomputed (Korthikanti Table 2, generalised to
/// SwiGLU, GQA, MoE and CP; no a*s^2 term with flash attention).
double layer_activation_bytes(const perf_context& x);
/// Bytes per parameter of Transformer Engine's FP8 weight workspace (0 when
/// not FP8): the FP8 weight and its transpose, cached across micro-batches.
double fp8_weight_cache_bytes(const perf_context& x);
/// What a fully recomputed layer keeps: its input.
double layer_checkpoint_bytes(const perf_context& x);
/// Micro-batches (in units of a whole stage) stage `stage` holds at peak:
/// min(p - i, m) for 1F1B, the interleaved warm-up count / v otherwise.
double in_flight_micro_batches(const perf_context& x, int stage);
/// All activation bytes of stage `stage` at its peak, recompute included.
double stage_activation_bytes(const perf_context& x, int stage);
/// Output layer and loss buffers of the last stage (one micro-batch).
double logits_bytes(const perf_context& x);

memory_breakdown stage_memory(const perf_context& x, int stage);

} // namespace paratune
