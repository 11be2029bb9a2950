#include "core/perf/memory_model.hpp"

#include <algorithm>
#include <cmath>

namespace paratune {

namespace {

constexpr double mib = 1024.0 * 1024.0;

// Shards of the dense optimizer state: DP times CP (CP ranks hold the same
// weights and reduce their gradients together).
int dense_shards(const perf_context& x) { return x.dp * x.cp; }

int expert_shards(const perf_context& x) {
  return std::max(1, x.world / (x.tp * x.ep * x.pp));
}

// MoE MLP activations per token on one GPU: each of the top-k copies keeps
// its permuted input, the up projection and the activation, plus the
// dispatch and combine buffers; experts see uneven loads (x1.1).
double moe_mlp_activation(const perf_context& x) {
  const double up = (x.swiglu ? 2 : 1) * x.moe_ffn;
  const double per_copy = 2 * x.h + 2 * up / x.tp + 2 * x.moe_ffn / x.tp;
  return 1.1 * x.topk * per_copy + 4 * x.topk * x.h / (x.sp ? x.tp : 1);
}

// What FP8 changes in the saved GEMM inputs, bytes per token (0 unless FP8).
// Transformer Engine's Linear/LayerNormLinear/LayerNormMLP save the input of
// each GEMM for the weight gradient as the FP8 tensor they cast it to
// (transformer_engine/pytorch/module/linear.py: saved_inputmat is the FP8
// inputmat or its FP8 transpose inputmat_t; TE 2.x keeps its column-wise
// FP8 data): 1 B instead of 2 for the QKV and fc1 inputs (the norm outputs)
// and the fc2 input (the activation output), whose bf16 originals are not
// kept. The out-projection input is the attention output that the fused
// attention kernel keeps in bf16 for its own backward, so FP8 adds its 1 B
// copy there. Norm inputs, Q/K/V and the fc1 output stay bf16.
double fp8_gemm_inputs(const perf_context& x) {
  if (x.prec != precision::fp8)
    return 0;
  const double norm_outputs = -2 * x.h / (x.sp ? x.tp : 1);
  const double fc2_input = x.moe ? -1.1 * x.topk * x.moe_ffn / x.tp : -x.ffn / x.tp;
  return norm_outputs + fc2_input + x.q / x.tp;
}

// One MLP of width `ffn` on every token: fc1's output and the activation's
// (the fc2 input), 2 B each.
double mlp_activation(const perf_context& x, double ffn) {
  const double up = (x.swiglu ? 2 : 1) * ffn;
  return (2 * up + 2 * ffn) / x.tp;
}

double dense_mlp_activation(const perf_context& x) { return mlp_activation(x, x.ffn); }

// A MoE layer's shared expert is a dense MLP every token passes, beside the
// routed ones.
double shared_expert_activation(const perf_context& x) {
  return x.shared_ffn > 0 ? mlp_activation(x, x.shared_ffn) : 0;
}

// Stored attention scores without flash attention: softmax output, and
// with dropout also its mask and output (5 a s^2 b / t bytes).
double score_activation(const perf_context& x) {
  const bool kept = !x.cal.flash_attention
                    && x.config->recompute == recompute_mode::none;
  if (!kept)
    return 0;
  return (x.dropout ? 5 : 2) * (x.heads / x.tp) * x.seq;
}

} // namespace

param_bytes bytes_per_param(precision p, bool dist_opt, int shards, bool grad_bf16) {
  param_bytes b;
  const double sharded = dist_opt ? 1.0 / std::max(1, shards) : 1.0;
  if (p == precision::fp16) {
    b.weights = 2;
    b.gradients = 2;
    b.optimizer = 16 * sharded; // fp32 master, fp32 grad copy, Adam m and v
  } else {
    b.weights = 2;
    // fp32 main grads; --grad-reduce-in-bf16 turns off Megatron's
    // accumulate_allreduce_grads_in_fp32, so the DDP grad buffer is bf16.
    b.gradients = grad_bf16 ? 2 : 4;
    b.optimizer = 12 * sharded; // fp32 master, Adam m and v
  }
  return b;
}

stage_params params_on_stage(const perf_context& x, int stage) {
  stage_params s;
  const double layers = x.stage_layers[stage];
  const double replicated = x.layer_replicated_params;
  // Norms, router and row-parallel biases are replicated across TP; the
  // rest is split.
  s.dense = layers * ((x.layer_params - replicated) / x.tp + replicated);
  s.experts = layers * x.layer_expert_params / (x.ep * x.tp);
  s.gemm_weights = layers * (x.layer_params - replicated) / x.tp + s.experts;
  const bool last = stage == x.pp - 1;
  if (stage == 0)
    s.dense += x.embedding_params / x.tp + x.position_params;
  // The output layer: its own weights when untied; a copy of the embedding
  // on the last stage when tied and pipelined.
  if (last && (!x.tied || x.pp > 1))
    s.dense += x.embedding_params / x.tp;
  if (last)
    s.dense += (x.rmsnorm ? 1 : 2) * x.h;
  return s;
}

double layer_activation_bytes(const perf_context& x) {
  const double seq_split = x.sp ? x.tp : 1;
  // Norm inputs (2 x 2), QKV and fc1 inputs (2 + 2), dropout masks (2 x 1):
  // Korthikanti's "10", replicated across TP unless SP splits it.
  const double replicated = (8 + (x.dropout ? 2 : 0)) * x.h / seq_split;
  // Q, K, V (views of the fused QKV output) and the attention output (the
  // out-projection input). Rotary embedding writes new Q and K tensors that
  // flash attention keeps while the fused buffer stays alive through V.
  const double rotary = x.rotary ? 2 * (x.q / x.tp + x.kv_local) : 0;
  // QK layernorm keeps its inputs (Q and K before the norm) for backward.
  const double qk_norm = x.qk_norm ? 2 * (x.q / x.tp + x.kv_local) : 0;
  const double attention = 2 * (2 * x.q / x.tp + 2 * x.kv_local) + rotary + qk_norm;
  const double mlp =
    x.moe ? moe_mlp_activation(x) + shared_expert_activation(x) : dense_mlp_activation(x);
  return x.tokens * (replicated + attention + mlp + score_activation(x) + fp8_gemm_inputs(x));
}

double fp8_weight_cache_bytes(const perf_context& x) {
  // Transformer Engine casts each GEMM weight to FP8 on the first
  // micro-batch and keeps the FP8 copy and its transpose (Hopper's FP8 GEMMs
  // take only the TN layout, so dgrad needs W^T in FP8) in the module's
  // workspace cache (is_first_microbatch, which Megatron's TE wrappers pass
  // unless --disable-parameter-transpose-cache): 1 + 1 B per parameter, next
  // to the bf16 weight. The amax histories (a few fp32 values per GEMM) are
  // negligible.
  return x.prec == precision::fp8 ? 2.0 : 0.0;
}

double layer_checkpoint_bytes(const perf_context& x) {
  return 2 * x.tokens * x.h / (x.sp ? x.tp : 1);
}

double in_flight_micro_batches(const perf_context& x, int stage) {
  const double m = x.micro_batches;
  if (x.vpp <= 1)
    return std::min<double>(x.pp - stage, m);
  const double chunks = 2.0 * (x.pp - stage - 1) + double(x.vpp - 1) * x.pp + 1;
  return std::min(chunks, m * x.vpp) / x.vpp;
}

namespace {

// Layers of a stage (per micro-batch in flight) that keep only their input
// under full recompute, and the working set recomputed during backward.
struct recompute_split {
  double checkpointed = 0;  ///< layers storing their input only
  double stored = 0;        ///< layers storing everything
  double checkpoints = 0;   ///< inputs kept (one per uniform group)
  double working = 0;       ///< layers rematerialised at once in backward
};

recompute_split split_layers(const perf_context& x, int stage) {
  const auto& c = *x.config;
  const double layers = x.stage_layers[stage];
  recompute_split r;
  if (c.recompute != recompute_mode::full) {
    r.stored = layers;
    return r;
  }
  const double group = c.recompute_layers > 0 ? c.recompute_layers : 1;
  if (c.recompute_block && c.recompute_layers > 0) {
    r.checkpointed = std::min(layers, group * x.vpp);
    r.stored = layers - r.checkpointed;
    r.checkpoints = r.checkpointed;
    r.working = 1;
  } else {
    r.checkpointed = layers;
    r.checkpoints = std::ceil(layers / group);
    r.working = std::min(layers, group);
  }
  return r;
}

double embedding_activation_bytes(const perf_context& x) {
  const double ids = 8 * x.mbs * x.seq_local;
  const double mask = x.dropout ? x.tokens * x.h / (x.sp ? x.tp : 1) : 0;
  return ids + mask;
}

// Without flash attention, the backward of one layer's core attention holds
// several score-sized tensors (a s^2 b / t, bf16) at once: counted in
// Megatron-LM's DotProductAttention, the softmax output, the gradient of the
// probabilities and the gradient of the scores. With no recompute the output
// is already among the stored activations; with recompute all three are
// made again. paratune's own H100 runs (data/h100_1gpu/) showed the term
// missing: 3.3-8.4 GiB under selective and full recompute.
double unfused_attention_working_bytes(const perf_context& x) {
  if (x.cal.flash_attention)
    return 0;
  const double score_tensor = 2 * (x.heads / x.tp) * x.seq * x.tokens;
  return (x.config->recompute == recompute_mode::none ? 2 : 3) * score_tensor;
}

} // namespace

double stage_activation_bytes(const perf_context& x, int stage) {
  const double full = layer_activation_bytes(x);
  const double in_flight = in_flight_micro_batches(x, stage);
  const recompute_split r = split_layers(x, stage);
  double bytes = in_flight * (r.stored * full + r.checkpoints * layer_checkpoint_bytes(x));
  bytes += r.working * full; // one micro-batch rematerialised in backward
  if (stage == 0)
    bytes += in_flight * embedding_activation_bytes(x);
  return bytes;
}

double logits_bytes(const perf_context& x) {
  const double logits = x.tokens * x.vocab / x.tp;
  // Unfused: the fp32 copy of the logits, exponentiated and normalised in
  // place and kept for backward, while the bf16 GEMM output is still alive
  // (6 B). The fused kernel never holds both (4 B).
  const double per_logit = x.config->fused_ce ? 4 : 6;
  // Final norm input and output.
  const double norm = 4 * x.tokens * x.h / (x.sp ? x.tp : 1);
  return logits * per_logit + norm;
}

memory_breakdown stage_memory(const perf_context& x, int stage) {
  memory_breakdown b;
  b.stage = stage;
  const stage_params params = params_on_stage(x, stage);
  const bool grad_bf16 = x.config->grad_reduce_bf16;
  const param_bytes dense = bytes_per_param(x.prec, x.config->dist_opt, dense_shards(x), grad_bf16);
  const param_bytes expert =
    bytes_per_param(x.prec, x.config->dist_opt, expert_shards(x), grad_bf16);
  b.weights_mib = (params.dense * dense.weights + params.experts * expert.weights
                   + params.gemm_weights * fp8_weight_cache_bytes(x)) / mib;
  b.gradients_mib = (params.dense * dense.gradients + params.experts * expert.gradients) / mib;
  b.optimizer_mib = (params.dense * dense.optimizer + params.experts * expert.optimizer) / mib;
  b.activations_mib = stage_activation_bytes(x, stage) / mib;
  b.logits_mib = stage == x.pp - 1 ? logits_bytes(x) / mib : 0;
  b.attention_working_mib = unfused_attention_working_bytes(x) / mib;
  const double scale = x.cal.memory_overhead_scale;
  b.overhead_mib = scale * (x.profile->context_mib
                            + x.profile->fragmentation * (b.activations_mib + b.logits_mib));
  b.total_mib = b.weights_mib + b.gradients_mib + b.optimizer_mib
                + b.activations_mib + b.logits_mib + b.attention_working_mib + b.overhead_mib;
  return b;
}

} // namespace paratune
