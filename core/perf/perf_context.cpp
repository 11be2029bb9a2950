#include "core/perf/perf_context.hpp"

#include <algorithm>

#include "core/megatron_rules.hpp"

namespace paratune {

namespace {

void set_model(perf_context& x, const model_spec& m, int tp) {
  x.h = m.hidden;
  // Guard the divisions: an unchecked spec must not crash the screen.
  x.heads = std::max(1, m.heads);
  x.kv_heads = m.kv_heads > 0 ? m.kv_heads : x.heads;
  x.head_dim = m.head_dim > 0 ? m.head_dim : double(m.hidden) / x.heads;
  x.q = x.heads * x.head_dim;
  x.kv = x.kv_heads * x.head_dim;
  x.ffn = m.ffn;
  x.moe = m.is_moe();
  x.moe_ffn = x.moe ? (m.moe_ffn > 0 ? m.moe_ffn : m.ffn) : 0;
  x.shared_ffn = x.moe ? m.shared_expert_ffn : 0;
  x.experts = m.experts;
  x.topk = x.moe ? std::max(1, m.topk) : 0;
  x.vocab = double(m.padded_vocab(tp));
  x.layers = std::max(1, m.layers);
  x.swiglu = m.swiglu;
  x.tied = m.tied_embeddings;
  x.rmsnorm = m.rmsnorm;
  // GPT-style models (LayerNorm, GeLU, learned positions) train with
  // dropout 0.1 and keep 1-byte masks; Llama-style models (SwiGLU) train
  // with dropout 0.
  x.dropout = !m.swiglu;
  x.rotary = m.position == position_embedding::rope;
  x.learned_positions = m.position == position_embedding::learned_absolute;
  x.qk_norm = m.qk_layernorm;
}

// One MLP of width `ffn`: its weights, and with biases fc1's (split over TP
// like its columns) and fc2's (h, whole on every rank).
struct mlp_count { double split = 0, replicated = 0; };

mlp_count mlp_params(const perf_context& x, const model_spec& m, double ffn) {
  mlp_count c;
  c.split = (x.swiglu ? 3 : 2) * x.h * ffn;
  if (m.bias_linear) {
    c.split += (x.swiglu ? 2 : 1) * ffn;
    c.replicated += x.h;
  }
  return c;
}

void set_params(perf_context& x, const model_spec& m) {
  const double norm_width = x.rmsnorm ? 1 : 2;
  const double norms = 2 * norm_width * x.h;
  double attention = 2 * x.h * x.q + 2 * x.h * x.kv;
  if (m.has_qkv_bias())
    attention += x.q + 2 * x.kv;
  double replicated = norms;
  if (m.bias_linear)
    replicated += x.h; // the output projection's bias
  if (x.qk_norm)
    replicated += 2 * norm_width * x.head_dim;
  if (x.moe) {
    replicated += x.h * x.experts; // router
    const mlp_count expert = mlp_params(x, m, x.moe_ffn);
    x.layer_expert_params = x.experts * (expert.split + expert.replicated);
    if (x.shared_ffn > 0) {
      const mlp_count shared = mlp_params(x, m, x.shared_ffn);
      attention += shared.split;
      replicated += shared.replicated;
    }
  } else {
    const mlp_count dense = mlp_params(x, m, x.ffn);
    attention += dense.split;
    replicated += dense.replicated;
  }
  x.layer_params = attention + replicated;
  x.layer_replicated_params = replicated;
  x.embedding_params = x.vocab * x.h;
  // Megatron-LM sizes the table by --max-position-embeddings, which paratune
  // renders as the sequence length.
  x.position_params = x.learned_positions ? x.seq * x.h : 0;
}

} // namespace

perf_context make_context(const model_spec& m, const cluster_spec& cluster,
                          int world_size, const training_config& c, precision p,
                          const perf_calibration& cal) {
  perf_context x;
  x.model = &m;
  x.cluster = &cluster;
  x.config = &c;
  x.profile = &profile_for(cluster.device);
  x.cal = cal;
  x.prec = p;
  set_model(x, m, c.tp);
  x.world = std::max(1, world_size);
  x.tp = std::max(1, c.tp);
  x.pp = std::max(1, c.pp);
  x.cp = std::max(1, c.cp);
  x.ep = std::max(1, c.ep);
  x.vpp = std::max(1, c.vpp);
  x.dp = std::max(1, c.data_parallel(world_size));
  x.mbs = std::max(1, c.mbs);
  x.gbs = std::max(1, c.gbs);
  x.seq = c.seq;
  x.micro_batches = std::max(1, c.micro_batches(world_size));
  if (c.micro_batches(world_size) == 0) // gbs not divisible: round up
    x.micro_batches = std::max(1, int((x.gbs + x.mbs * x.dp - 1) / (x.mbs * x.dp)));
  x.sp = c.sp && x.tp > 1;
  x.stage_layers = stage_layers(m, c);
  if (x.stage_layers.empty()) // invalid split: spread as evenly as possible
    for (int i = 0; i < x.pp; ++i)
      x.stage_layers.push_back(m.layers / x.pp + (i < m.layers % x.pp ? 1 : 0));
  x.seq_local = x.seq / x.cp;
  x.tokens = x.mbs * x.seq_local;
  x.kv_local = std::max(x.kv / x.tp, x.head_dim);
  set_params(x, m);
  return x;
}

} // namespace paratune
