#include "core/tpu/maxtext_args.hpp"

#include <array>
#include <charconv>
#include <cstdint>

#include "core/input_error.hpp"
#include "core/tpu/maxtext_rules.hpp"

namespace paratune {

namespace {

// MaxText's names of paratune's mesh axes. paratune's seq axis is MaxText's
// `context`: `sequence` is no mesh axis any more (base.yml:531 at
// maxtext_rules_commit), so ici_sequence_parallelism would be dropped and
// the mesh would not cover the slice (maxtext_rule::sequence_axis_ignored).
const char* maxtext_axis_name(mesh_axis a) {
  switch (a) {
    case mesh_axis::replica:
    case mesh_axis::data: return "data";
    case mesh_axis::fsdp: return "fsdp";
    case mesh_axis::seq: return "context";
    case mesh_axis::expert: return "expert";
    case mesh_axis::model: return "tensor";
  }
  return "data";
}

void add_mesh_overrides(const tpu_mesh& m, const char* prefix, std::vector<std::string>& out) {
  for (auto a : {mesh_axis::data, mesh_axis::fsdp, mesh_axis::seq, mesh_axis::model,
                 mesh_axis::expert}) {
    const int size = a == mesh_axis::data ? m.at(mesh_axis::replica) * m.at(mesh_axis::data)
                                          : m.at(a);
    out.push_back(std::string(prefix) + "_" + maxtext_axis_name(a) + "_parallelism="
                  + std::to_string(size));
  }
}

// MaxText trains devices x per_device_batch_size x gradient_accumulation_steps
// sequences per optimizer step (types.py:3464-3466), so the per-device batch
// is the global batch over both. It may be fractional (below one sequence
// per chip); a whole one is written without a decimal point, any other as
// the shortest decimal that reads back as the same double.
std::string per_device_batch_text(int global_batch, int chips, int steps) {
  const double v = double(global_batch) / (double(chips) * steps);
  if (v == double(int64_t(v)))
    return std::to_string(int64_t(v));
  std::array<char, 32> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), end);
}

void add_model_overrides(const model_spec& m, std::vector<std::string>& out) {
  out.push_back("base_emb_dim=" + std::to_string(m.hidden));
  out.push_back("base_num_query_heads=" + std::to_string(m.heads));
  out.push_back("base_num_kv_heads=" + std::to_string(m.kv_heads));
  out.push_back("head_dim=" + std::to_string(m.head_size()));
  // paratune's MoE models are MoE in every layer: MaxText wants the expert
  // width in base_moe_mlp_dim (types.py:3895) and, for such a model, the
  // same width in base_mlp_dim (types.py:3908).
  out.push_back("base_mlp_dim=" + std::to_string(m.is_moe() ? m.moe_ffn : m.ffn));
  out.push_back("base_num_decoder_layers=" + std::to_string(m.layers));
  out.push_back("vocab_size=" + std::to_string(m.vocab));
  if (m.is_moe()) {
    out.push_back("num_experts=" + std::to_string(m.experts));
    out.push_back("num_experts_per_tok=" + std::to_string(m.topk));
    out.push_back("base_moe_mlp_dim=" + std::to_string(m.moe_ffn));
  }
}

} // namespace

std::vector<std::string> render_maxtext_args(const maxtext_launch& l) {
  std::vector<std::string> out;
  add_mesh_overrides(l.ici, "ici", out);
  add_mesh_overrides(l.dcn, "dcn", out);
  const auto& w = l.workload;
  out.push_back("per_device_batch_size="
                + per_device_batch_text(w.global_batch, l.chips, w.accumulation_steps));
  out.push_back("max_target_length=" + std::to_string(w.seq_len));
  out.push_back("gradient_accumulation_steps=" + std::to_string(w.accumulation_steps));
  out.push_back(std::string("remat_policy=") + to_string(w.remat));
  // `none` saves everything in the NNX decoder only; pin it, whatever the
  // base config says (remat_none_decoder).
  if (w.remat == remat_policy::none)
    out.push_back("pure_nnx_decoder=true");
  add_model_overrides(l.model, out);
  return out;
}

maxtext_target target_of(const maxtext_launch& l) {
  const int slices = l.dcn.chips();
  return {l.chips / (slices > 0 ? slices : 1), slices, l.workload.global_batch};
}

std::vector<std::string> checked_maxtext_args(const maxtext_launch& l) {
  auto args = render_maxtext_args(l);
  const auto findings = check_maxtext_overrides(args, target_of(l));
  if (findings.empty())
    return args;
  std::string why;
  for (const auto& f : findings)
    why += std::string(why.empty() ? "" : "; ") + std::string(f.row().id) + ": " + f.printed();
  throw input_error("MaxText would not run these overrides as meant (" + why + ")");
}

} // namespace paratune
