#include "core/tpu/mesh_memory.hpp"

#include <algorithm>

namespace paratune {

namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;
constexpr double act_bytes = 2;  // bf16 activations

// Bytes one layer keeps for the backward pass on one chip. Activations are
// sharded over `model` along the embedding (MaxText's activation_embed),
// the MLP hidden along `model` too. Offloaded tensors live in host memory.
double layer_saved_bytes(const mesh_shapes& s, const remat_plan& r) {
  const double t = s.tokens_local / s.model;
  const double mlp = s.moe ? s.moe_ffn * s.topk : s.ffn;
  const double qkv = s.q + 2 * s.kv;
  // Everything backward reads, flash attention and no dropout: both norms'
  // inputs and outputs, q, k, v, the attention output, the MLP's up
  // projection(s) and its activation (Korthikanti's 34 s b h bytes for a
  // GPT layer, less the dropout masks).
  if (r.saves_everything)
    return act_bytes * t * (4 * s.h + s.q + qkv + (s.swiglu ? 3 : 2) * mlp);
  double kept = s.h;  // the layer's input: the checkpoint of the layer scan
  if (!r.offloaded)
    kept += (r.qkv ? qkv : 0) + (r.context ? s.q : 0) + (r.out_proj ? s.h : 0)
            + (r.mlp_in ? (s.swiglu ? 2 : 1) * mlp : 0) + (r.mlp_out ? s.h : 0);
  return act_bytes * t * kept;
}

// Transient memory beside the persistent state, at the larger of the two
// moments of the backward pass that need the most: the loss (fp32 logits
// and their gradient, before any layer's backward) and a layer's backward
// (two layers of gathered weights, one in use and one prefetched, when FSDP-
// style sharding gathers them; the gathered keys and values under context
// parallelism; the recomputed layer's activations). They do not coexist:
// the logits are freed once the output projection's backward is done.
double workspace_bytes(const mesh_shapes& s, const mesh_workload& w) {
  const double logits = 2 * s.tokens_local * s.vocab / s.model * 4;
  double layer_weights = (s.dense_params / s.layers + s.expert_params / s.layers / s.expert)
                         / s.model * act_bytes;
  const bool gathers = s.fsdp > 1 || (w.seq_shards_weights && s.seq > 1);
  double layer = gathers ? 2 * layer_weights : 0;
  if (s.seq > 1)
    layer += s.batch_local * w.seq_len * 2 * s.kv / s.model * act_bytes;
  if (w.remat != remat_policy::none)
    layer += layer_saved_bytes(s, plan_of(remat_policy::none));
  return std::max(logits, layer);
}

} // namespace

mesh_memory estimate_mesh_memory(const mesh_shapes& s, const mesh_workload& w,
                                 double hbm_gib) {
  mesh_memory m;
  m.params_gib = s.local_params * w.param_bytes / gib;
  m.grads_gib = s.local_params * w.param_bytes / gib;
  m.optimizer_gib = s.local_optimizer_params * 8 / gib;
  m.activations_gib = s.layers * layer_saved_bytes(s, plan_of(w.remat)) / gib;
  m.workspace_gib = workspace_bytes(s, w) / gib;
  m.total_gib = m.params_gib + m.grads_gib + m.optimizer_gib + m.activations_gib
                + m.workspace_gib;
  m.limit_gib = hbm_gib * usable_hbm_fraction;
  m.fits = m.total_gib <= m.limit_gib;
  return m;
}

} // namespace paratune
