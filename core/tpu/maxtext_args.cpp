#include "core/tpu/maxtext_args.hpp"

#include <cstdio>
#include <cstdint>

namespace paratune {

namespace {

// MaxText's names of paratune's mesh axes (base.yml).
const char* maxtext_axis(mesh_axis a) {
  switch (a) {
    case mesh_axis::replica:
    case mesh_axis::data: return "data";
    case mesh_axis::fsdp: return "fsdp";
    case mesh_axis::seq: return "sequence";
    case mesh_axis::expert: return "expert";
    case mesh_axis::model: return "tensor";
  }
  return "data";
}

void add_mesh(const tpu_mesh& m, const char* prefix, std::vector<std::string>& out) {
  for (auto a : {mesh_axis::data, mesh_axis::fsdp, mesh_axis::seq, mesh_axis::model,
                 mesh_axis::expert}) {
    const int size = a == mesh_axis::data ? m.at(mesh_axis::replica) * m.at(mesh_axis::data)
                                          : m.at(a);
    out.push_back(std::string(prefix) + "_" + maxtext_axis(a) + "_parallelism="
                  + std::to_string(size));
  }
}

// MaxText takes a fractional per-device batch (below one sequence per chip);
// a whole one is written without a decimal point.
std::string per_device_batch(int global_batch, int chips) {
  const double v = double(global_batch) / chips;
  if (v == double(int64_t(v)))
    return std::to_string(int64_t(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void add_model(const model_spec& m, std::vector<std::string>& out) {
  out.push_back("base_emb_dim=" + std::to_string(m.hidden));
  out.push_back("base_num_query_heads=" + std::to_string(m.heads));
  out.push_back("base_num_kv_heads=" + std::to_string(m.kv_heads));
  out.push_back("head_dim=" + std::to_string(m.head_size()));
  out.push_back("base_mlp_dim=" + std::to_string(m.is_moe() ? m.moe_ffn : m.ffn));
  out.push_back("base_num_decoder_layers=" + std::to_string(m.layers));
  out.push_back("vocab_size=" + std::to_string(m.vocab));
  if (m.is_moe()) {
    out.push_back("num_experts=" + std::to_string(m.experts));
    out.push_back("num_experts_per_tok=" + std::to_string(m.topk));
  }
}

} // namespace

std::vector<std::string> render_maxtext_args(const maxtext_launch& l) {
  std::vector<std::string> out;
  add_mesh(l.ici, "ici", out);
  add_mesh(l.dcn, "dcn", out);
  const auto& w = l.workload;
  out.push_back("per_device_batch_size=" + per_device_batch(w.global_batch, l.chips));
  out.push_back("max_target_length=" + std::to_string(w.seq_len));
  out.push_back("gradient_accumulation_steps=" + std::to_string(w.accumulation_steps));
  out.push_back(std::string("remat_policy=") + to_string(w.remat));
  add_model(l.model, out);
  return out;
}

} // namespace paratune
