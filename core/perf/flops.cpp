#include "core/perf/flops.hpp"

#include <algorithm>

namespace paratune {

namespace {

double tokens_per_iteration(const perf_context& x) { return x.gbs * x.seq; }

// Attention-score FLOPs (Q K^T and A V) of all layers, forward only,
// counting the full s x s matrix.
double attention_score_forward(const perf_context& x) {
  return 4 * tokens_per_iteration(x) * x.seq * x.q * x.layers;
}

} // namespace

double model_flops_noncausal(const perf_context& x) {
  const double h = x.h;
  const double gated = x.swiglu ? 1.5 : 1.0;
  const double f = x.moe ? x.moe_ffn : x.ffn;
  const double k = x.moe ? x.topk : 1.0;
  // A shared expert runs on every token like one more expert (Megatron-LM's
  // count adds moe_shared_expert_intermediate_size the same way). Biases and
  // norms are a few FLOPs per parameter, not 2 x tokens per parameter, and
  // stay out as in Megatron-LM's count.
  const double term = (1 + x.kv_heads / x.heads + x.seq / h) * (x.q / h)
                      + ((f * k + x.shared_ffn) / h) * gated + x.vocab / (2 * x.layers * h);
  return 12 * tokens_per_iteration(x) * x.layers * h * h * term;
}

double recomputed_layer_fraction(const perf_context& x) {
  const auto& c = *x.config;
  if (c.recompute != recompute_mode::full)
    return 0;
  if (!c.recompute_block || c.recompute_layers <= 0)
    return 1; // uniform recomputes every layer, whatever its group size
  double recomputed = 0;
  for (int l : x.stage_layers)
    recomputed += std::min<double>(l, double(c.recompute_layers) * x.vpp);
  return recomputed / x.layers;
}

iteration_flops count_flops(const perf_context& x) {
  iteration_flops f;
  f.model = model_flops_noncausal(x);
  const double scores = attention_score_forward(x);
  // Forward + backward = 3x forward; causal masking halves the scores.
  f.model_causal = f.model - 3 * scores / 2;
  const double scores_run = x.cal.flash_attention ? scores / 2 : scores;
  f.executed = x.cal.flash_attention ? f.model_causal : f.model;
  const double logits = 6 * tokens_per_iteration(x) * x.h * x.vocab;
  // The recomputed forward pass in both counts: whole attention (beside the
  // model FLOPs) and as the kernels run it (beside the executed ones).
  f.hardware = f.model;
  f.executed_hardware = f.executed;
  if (x.config->recompute == recompute_mode::full) {
    const double fraction = recomputed_layer_fraction(x);
    f.hardware += (f.model - logits) / 3 * fraction;
    f.executed_hardware += (f.executed - logits) / 3 * fraction;
  } else if (x.config->recompute == recompute_mode::selective) {
    f.hardware += scores;
    f.executed_hardware += scores_run;
  }
  return f;
}

} // namespace paratune
