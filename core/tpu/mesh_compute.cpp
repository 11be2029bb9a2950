// The non-collective work of a step on one chip. Matmul time uses the
// core/perf GEMM model: the slower of compute at the shape's efficiency and
// the HBM traffic of its operands, so a matmul with few local tokens (rows)
// is HBM-bound, which is the per-chip form of §2.6's "intensity = local
// batch in tokens".
#include "core/tpu/mesh_parts.hpp"

#include <algorithm>

namespace paratune::mesh_detail {

namespace {

struct gemm_totals {
  double compute_s = 0, hbm_s = 0, compute_flops = 0, hbm_flops = 0;
  double compute_bytes = 0, hbm_bytes = 0;
  long long compute_count = 0, hbm_count = 0;
};

// One GEMM [m,k] x [k,n], `times` times.
void add_gemm(gemm_totals& g, const kernel_target& t, double m, double n, double k,
              double times) {
  if (m <= 0 || n <= 0 || k <= 0 || times <= 0)
    return;
  const double flops = 2 * m * n * k;
  const double compute = flops / (t.peak_flops * gemm_efficiency(t, m, n, k));
  const double bytes = 2 * (m * k + k * n + m * n);
  const double traffic = bytes / (t.hbm_bytes_per_s * t.hbm_efficiency);
  if (compute >= traffic) {
    g.compute_s += times * (compute + t.kernel_overhead_s);
    g.compute_flops += times * flops;
    g.compute_bytes += times * bytes;
    g.compute_count += static_cast<long long>(times);
  } else {
    g.hbm_s += times * (traffic + t.kernel_overhead_s);
    g.hbm_flops += times * flops;
    g.hbm_bytes += times * bytes;
    g.hbm_count += static_cast<long long>(times);
  }
}

// Forward [m,k]x[k,n], its two backward GEMMs, and a recomputed forward.
void add_trained_gemm(gemm_totals& g, const kernel_target& t, double m, double n, double k,
                      double times, bool recompute) {
  add_gemm(g, t, m, n, k, times * (recompute ? 2 : 1));
  add_gemm(g, t, m, k, n, times);
  add_gemm(g, t, k, n, m, times);
}

gemm_totals layer_gemms(const mesh_inputs& in) {
  const auto& s = *in.s;
  const double m = s.tokens_local;
  const double reps = s.layers * in.micro_steps;
  const auto r = plan_of(in.w->remat);
  gemm_totals g;
  add_trained_gemm(g, in.target, m, (s.q + 2 * s.kv) / s.model, s.h, reps, r.recompute_qkv);
  add_trained_gemm(g, in.target, m, s.h, s.q / s.model, reps, r.recompute_out);
  if (s.moe) {
    // Each chip holds experts/expert experts; its rows are its tokens' top-k copies.
    const double local_experts = s.experts / s.expert;
    const double rows = s.tokens_local * s.topk / local_experts;
    const double width = s.moe_ffn / s.model;
    add_trained_gemm(g, in.target, rows, width * (s.swiglu ? 2 : 1), s.h, reps * local_experts,
                     r.recompute_mlp_in);
    add_trained_gemm(g, in.target, rows, s.h, width, reps * local_experts, false);
  } else {
    add_trained_gemm(g, in.target, m, s.ffn / s.model * (s.swiglu ? 2 : 1), s.h, reps,
                     r.recompute_mlp_in);
    add_trained_gemm(g, in.target, m, s.h, s.ffn / s.model, reps, false);
  }
  add_trained_gemm(g, in.target, m, s.vocab / s.model, s.h, in.micro_steps, false);
  return g;
}

mesh_op make_op(const char* name, const char* category, const char* bound, double seconds,
                double flops, double bytes, long long count) {
  mesh_op op;
  op.name = name;
  op.category = category;
  op.bound_by = bound;
  op.seconds = seconds;
  op.exposed_s = seconds;
  op.flops = flops;
  op.hbm_bytes = bytes;
  op.occurrences = count;
  return op;
}

// Causal flash attention. Without striping, the seq shard holding the end
// of the sequence attends to the most keys and sets the pace: 2 - 1/cp
// times the average work.
mesh_op attention_op(const mesh_inputs& in) {
  const auto& s = *in.s;
  const double cp = s.seq;
  const double imbalance = in.w->cp_load_balanced ? 1.0 : 2.0 - 1.0 / cp;
  const double keys = in.w->seq_len / 2.0 * imbalance;
  const double fwd = 4 * s.batch_local * s.seq_local * keys * s.q / s.model;
  const double passes = 1 + 2.5 + (plan_of(in.w->remat).recompute_attention ? 1 : 0);
  const double flops = fwd * passes * s.layers * in.micro_steps;
  // Short query blocks per chip fill the matrix units less well.
  const double eff = in.target.attention_efficiency * s.seq_local / (s.seq_local + 256);
  const double seconds = flops / (in.target.peak_flops * eff);
  const double bytes = s.batch_local * (s.seq_local * (s.q + s.kv) + in.w->seq_len * 2 * s.kv)
                       / s.model * 2 * passes * s.layers * in.micro_steps;
  return make_op("flash attention (custom-call)", "custom-call", "Compute", seconds, flops, bytes,
                 static_cast<long long>(2 * s.layers * in.micro_steps));
}

// Residual adds, norms, rotary, activation functions and their gradients
// that XLA leaves as loop fusions: a few passes over the layer's activations.
mesh_op elementwise_op(const mesh_inputs& in) {
  const auto& s = *in.s;
  const double hidden = s.tokens_local * s.h / s.model;
  const double mlp = s.tokens_local * (s.moe ? s.moe_ffn * s.topk : s.ffn) / s.model;
  const double per_layer = 2.0 * (12 * hidden + 4 * mlp)
                           * (in.w->remat == remat_policy::none ? 1.0 : 1.33);
  const double logits = 3 * 4 * s.tokens_local * s.vocab / s.model;
  const double bytes = (per_layer * s.layers + logits) * in.micro_steps;
  const double seconds = bytes / (in.target.hbm_bytes_per_s * in.target.hbm_efficiency);
  return make_op("element-wise fusions (norms, residual adds, activations)", "loop fusion",
                 "HBM", seconds, 0, bytes,
                 static_cast<long long>(6 * s.layers * in.micro_steps));
}

// Adam: read parameter, gradient, two moments; write parameter and moments.
mesh_op optimizer_op(const mesh_inputs& in) {
  const auto& s = *in.s;
  const double bytes = 28 * s.local_optimizer_params;
  const double seconds = bytes / (in.target.hbm_bytes_per_s * in.target.hbm_efficiency);
  return make_op("optimizer update (Adam)", "loop fusion", "HBM", seconds,
                 10 * s.local_optimizer_params, bytes, static_cast<long long>(s.layers));
}

} // namespace

std::vector<mesh_op> compute_ops(const mesh_inputs& in) {
  auto g = layer_gemms(in);
  std::vector<mesh_op> ops;
  if (g.compute_s > 0)
    ops.push_back(make_op("matmul fusions (attention projections, MLP, logits)",
                          "convolution fusion", "Compute", g.compute_s * in.cal.compute_scale,
                          g.compute_flops, g.compute_bytes, g.compute_count));
  if (g.hbm_s > 0)
    ops.push_back(make_op("matmul fusions reading weights (few local tokens)",
                          "convolution fusion", "HBM", g.hbm_s * in.cal.hbm_scale, g.hbm_flops,
                          g.hbm_bytes, g.hbm_count));
  auto att = attention_op(in);
  att.seconds *= in.cal.compute_scale;
  ops.push_back(att);
  for (auto op : {elementwise_op(in), optimizer_op(in)}) {
    op.seconds *= in.cal.hbm_scale;
    ops.push_back(op);
  }
  for (auto& op : ops)
    op.exposed_s = op.seconds;
  return ops;
}

} // namespace paratune::mesh_detail
