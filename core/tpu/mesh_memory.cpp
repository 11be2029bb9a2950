#include "core/tpu/mesh_memory.hpp"

namespace paratune {

namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;
constexpr double act_bytes = 2;  // bf16 activations

// Bytes one layer keeps for the backward pass on one chip. Activations are
// sharded over `model` along the embedding (MaxText's activation_embed),
// the MLP hidden along `model` too.
double layer_saved_bytes(const mesh_shapes& s, remat_policy p) {
  const double t = s.tokens_local;
  const double hidden = t * s.h / s.model;
  const double mlp = t * (s.moe ? s.moe_ffn * s.topk : s.ffn) / s.model;
  switch (p) {
    case remat_policy::full: return act_bytes * hidden;  // the layer's input
    case remat_policy::minimal:                          // matmul outputs
      return act_bytes * (4 * hidden + (s.q + 2 * s.kv) * t / s.model + 2 * mlp);
    case remat_policy::none:
      return act_bytes * (16 * hidden + 2 * (s.q + 2 * s.kv) * t / s.model
                          + (s.swiglu ? 4 : 3) * mlp);
  }
  return 0;
}

double workspace_bytes(const mesh_shapes& s, const mesh_workload& w) {
  // Two layers of gathered weights (one in use, one prefetched) when FSDP-
  // style sharding gathers them; the gathered keys and values of one layer
  // under context parallelism; fp32 logits and their gradient.
  double layer_weights = (s.dense_params / s.layers + s.expert_params / s.layers / s.expert)
                         / s.model * act_bytes;
  const bool gathers = s.fsdp > 1 || (w.seq_shards_weights && s.seq > 1);
  double ws = gathers ? 2 * layer_weights : 0;
  if (s.seq > 1)
    ws += s.batch_local * w.seq_len * 2 * s.kv / s.model * act_bytes;
  ws += 2 * s.tokens_local * s.vocab / s.model * 4;
  // One recomputed layer's full activations live during its backward.
  if (w.remat != remat_policy::none)
    ws += layer_saved_bytes(s, remat_policy::none);
  return ws;
}

} // namespace

mesh_memory estimate_mesh_memory(const mesh_shapes& s, const mesh_workload& w,
                                 double hbm_gib) {
  mesh_memory m;
  m.params_gib = s.local_params * w.param_bytes / gib;
  m.grads_gib = s.local_params * w.param_bytes / gib;
  m.optimizer_gib = s.local_optimizer_params * 8 / gib;
  m.activations_gib = s.layers * layer_saved_bytes(s, w.remat) / gib;
  m.workspace_gib = workspace_bytes(s, w) / gib;
  m.total_gib = m.params_gib + m.grads_gib + m.optimizer_gib + m.activations_gib
                + m.workspace_gib;
  m.limit_gib = hbm_gib * usable_hbm_fraction;
  m.fits = m.total_gib <= m.limit_gib;
  return m;
}

} // namespace paratune
