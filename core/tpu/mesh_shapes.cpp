#include "core/tpu/mesh_shapes.hpp"

#include <cctype>

namespace paratune {

namespace {

int combined(const tpu_mesh& ici, const tpu_mesh& dcn, mesh_axis a) {
  return ici.at(a) * dcn.at(a);
}

void require_divides(std::vector<std::string>& problems, double whole, int parts,
                     const std::string& what, const std::string& axes) {
  if (parts <= 1)
    return;
  const auto w = static_cast<long long>(whole);
  if (w <= 0 || w % parts != 0)
    problems.push_back(what + " " + std::to_string(w) + " does not divide over " + axes + " = "
                       + std::to_string(parts));
}

void fill_dimensions(mesh_shapes& s, const model_spec& m) {
  s.h = m.hidden;
  s.head_dim = m.head_size();
  s.heads = m.heads;
  s.q = double(m.heads) * s.head_dim;
  s.kv = double(m.kv_heads > 0 ? m.kv_heads : m.heads) * s.head_dim;
  s.ffn = m.ffn;
  s.moe_ffn = m.moe_ffn;
  s.vocab = m.vocab;
  s.layers = m.layers;
  s.experts = m.experts;
  s.topk = m.topk;
  s.swiglu = m.swiglu;
  s.moe = m.is_moe();
  const double mlp_mats = m.swiglu ? 3.0 : 2.0;
  const double attention = 2 * s.h * s.q + 2 * s.h * s.kv;
  const double norms = 2 * s.h;
  const double dense_mlp = s.moe ? s.h * s.experts : mlp_mats * s.h * s.ffn;
  s.dense_params = s.layers * (attention + norms + dense_mlp);
  s.expert_params = s.moe ? s.layers * s.experts * mlp_mats * s.h * s.moe_ffn : 0;
  s.embedding_params = s.vocab * s.h * (m.tied_embeddings ? 1 : 2);
}

void check_divisibility(mesh_shapes& s, const mesh_workload& w) {
  auto& p = s.problems;
  const int micro_batch = w.global_batch / std::max(1, w.accumulation_steps);
  if (w.global_batch % std::max(1, w.accumulation_steps) != 0)
    p.push_back("global batch " + std::to_string(w.global_batch)
                + " does not divide into " + std::to_string(w.accumulation_steps)
                + " accumulation steps");
  require_divides(p, micro_batch, s.batch_shards, "batch per micro-step",
                  "replica x data x fsdp x expert");
  require_divides(p, w.seq_len, s.seq, "sequence length", "seq");
  require_divides(p, s.heads, s.model, "attention heads", "model");
  require_divides(p, s.moe ? s.moe_ffn : s.ffn, s.model, "MLP width", "model");
  if (s.expert > 1 && !s.moe)
    p.push_back("expert axis " + std::to_string(s.expert) + " on a dense model");
  if (s.moe)
    require_divides(p, s.experts, s.expert, "experts", "expert");
}

void fill_sharding(mesh_shapes& s, const mesh_workload& w) {
  const int seq_w = w.seq_shards_weights ? s.seq : 1;
  s.dense_weight_shards = s.model * s.fsdp * seq_w;
  s.expert_weight_shards = s.expert * s.model * s.fsdp * seq_w;
  const int chips = s.replica * s.data * s.fsdp * s.seq * s.expert * s.model;
  s.grad_replicas = chips / s.dense_weight_shards;
  s.local_params = (s.dense_params + s.embedding_params) / s.dense_weight_shards
                   + s.expert_params / s.expert_weight_shards;
  const double zero1 = w.optimizer_over_data ? double(s.replica) * s.data : 1.0;
  s.local_optimizer_params = s.local_params / zero1;
}

} // namespace

mesh_shapes make_mesh_shapes(const model_spec& m, const tpu_mesh& ici, const tpu_mesh& dcn,
                             const mesh_workload& w) {
  mesh_shapes s;
  s.ici = ici;
  s.dcn = dcn;
  s.replica = combined(ici, dcn, mesh_axis::replica);
  s.data = combined(ici, dcn, mesh_axis::data);
  s.fsdp = combined(ici, dcn, mesh_axis::fsdp);
  s.seq = combined(ici, dcn, mesh_axis::seq);
  s.expert = combined(ici, dcn, mesh_axis::expert);
  s.model = combined(ici, dcn, mesh_axis::model);
  fill_dimensions(s, m);
  s.batch_shards = s.replica * s.data * s.fsdp * s.expert;
  const double micro_batch = double(w.global_batch) / std::max(1, w.accumulation_steps);
  s.batch_local = micro_batch / s.batch_shards;
  s.seq_local = double(w.seq_len) / s.seq;
  s.tokens_local = s.batch_local * s.seq_local;
  check_divisibility(s, w);
  fill_sharding(s, w);
  return s;
}

} // namespace paratune
