#include "core/tpu/maxtext_args.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>

#include "core/input_error.hpp"
#include "core/tpu/maxtext_architecture.hpp"
#include "core/tpu/maxtext_rules.hpp"
#include "core/tpu/maxtext_value.hpp"

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
  const auto model = maxtext_model_args(l.model);
  out.insert(out.end(), model.begin(), model.end());
  return out;
}

maxtext_target target_of(const maxtext_launch& l) {
  const int slices = l.dcn.chips();
  return {l.chips / (slices > 0 ? slices : 1), slices, l.workload.global_batch};
}

std::vector<std::string> checked_maxtext_args(const maxtext_launch& l) {
  if (const auto why = maxtext_cannot_build(l.model))
    throw input_error(*why);
  auto args = render_maxtext_args(l);
  const auto findings = check_maxtext_overrides(args, target_of(l));
  if (findings.empty())
    return args;
  std::string why;
  for (const auto& f : findings)
    why += std::string(why.empty() ? "" : "; ") + std::string(f.row().id) + ": " + f.printed();
  throw input_error("MaxText would not run these overrides as meant (" + why + ")");
}

namespace {

// One override as MaxText's command line holds it; the last of a key wins.
using launch_overrides = std::map<std::string, std::string, std::less<>>;

launch_overrides split_overrides(std::span<const std::string> overrides) {
  launch_overrides out;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw input_error("MaxText override '" + o + "' is not key=value");
    out[o.substr(0, eq)] = o.substr(eq + 1);
  }
  return out;
}

std::optional<double> number_in(const launch_overrides& m, std::string_view key) {
  const auto it = m.find(key);
  if (it == m.end())
    return std::nullopt;
  const auto& s = it->second;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    throw input_error("MaxText override " + std::string(key) + "=" + s + " is not a number");
  return v;
}

// A whole number >= `least` (MaxText's int fields), or -1 where MaxText
// lets one axis take the rest.
std::optional<int> whole_in(const launch_overrides& m, std::string_view key, int least,
                            bool auto_allowed = false) {
  const auto v = number_in(m, key);
  if (!v)
    return std::nullopt;
  if (auto_allowed && *v == -1)
    return -1;
  if (*v != std::floor(*v) || *v < least || *v > 1e9)
    throw input_error("MaxText override " + std::string(key) + "=" + m.find(key)->second
                      + " must be a whole number of at least " + std::to_string(least));
  return int(*v);
}

// MaxText's mesh axes paratune has no axis for (configs/base.yml:531 at
// maxtext_rules_commit): a run that sets one is not one paratune can model.
constexpr std::array<std::string_view, 7> unmodelled_axes = {
    "diloco", "pipeline", "fsdp_transpose", "context_usp_ulysses", "context_autoregressive",
    "tensor_sequence", "autoregressive"};

tpu_mesh read_mesh(const launch_overrides& m, const char* prefix, const tpu_mesh& base,
                   int chips) {
  tpu_mesh mesh = base;
  mesh.set(mesh_axis::replica, 1);
  for (auto a : {mesh_axis::data, mesh_axis::fsdp, mesh_axis::seq, mesh_axis::model,
                 mesh_axis::expert}) {
    const auto key = std::string(prefix) + "_" + maxtext_axis_name(a) + "_parallelism";
    const int base_size = a == mesh_axis::data
                              ? base.at(mesh_axis::replica) * base.at(mesh_axis::data)
                              : base.at(a);
    const auto v = whole_in(m, key, 1, true);
    mesh.set(a, v ? (*v == -1 ? 0 : *v) : base_size);
  }
  for (auto axis : unmodelled_axes) {
    const auto key = std::string(prefix) + "_" + std::string(axis) + "_parallelism";
    if (const auto v = whole_in(m, key, 1, true); v && *v != 1)
      throw input_error("MaxText override " + key + "=" + std::to_string(*v)
                        + ": paratune models no '" + std::string(axis) + "' mesh axis");
  }
  fill_auto_axis(mesh, chips);
  return mesh;
}

// The overrides as MaxText's config holds them: a model_name's file first
// (configs/pyconfig.py:514 merges base.yml, the model file, then the
// command line), the command line's keys over it.
struct model_overrides {
  launch_overrides keys;
  launch_overrides written;                  ///< the command line's alone
  const maxtext_model_file* file = nullptr;  ///< model_name's, where the table has it

  // "MaxText override k=v", or where model_name's file sets it.
  std::string described(const std::string& key) const {
    const auto& value = keys.at(key);
    if (written.contains(key) || !file)
      return "MaxText override " + key + "=" + value;
    return key + "=" + value + " from model_name=" + std::string(file->name) + " ("
           + std::string(file->file) + ":" + std::to_string(file->find(key)->line) + ")";
  }
};

model_overrides with_model_file(const launch_overrides& written) {
  model_overrides out{written, written, nullptr};
  const auto it = written.find("model_name");
  // A model MaxText ships that paratune's catalog has not: its file's keys
  // are unknown here, and only the keys written are checked.
  out.file = it == written.end() ? nullptr : maxtext_model_file_of(it->second);
  if (out.file)
    for (const auto& s : out.file->settings)
      out.keys.emplace(std::string(s.key), std::string(s.value));
  return out;
}

void expect_model_size(const model_overrides& m, const std::string& key, int expected) {
  if (const auto v = whole_in(m.keys, key, 1); v && *v != expected)
    throw input_error(m.described(key) + " is not the experiment's model ("
                      + std::to_string(expected) + ")");
}

// Every architecture key the overrides (with their model file) set must be
// the experiment's model: the sizes first, then the rest of what builds it
// (decoder block, rope, epsilon, biases, activations).
void expect_model(const model_overrides& m, const model_spec& model) {
  expect_model_size(m, "base_emb_dim", model.hidden);
  expect_model_size(m, "base_num_query_heads", model.heads);
  expect_model_size(m, "base_num_kv_heads", model.kv_heads);
  expect_model_size(m, "head_dim", model.head_size());
  expect_model_size(m, "base_mlp_dim", model.is_moe() ? model.moe_ffn : model.ffn);
  expect_model_size(m, "base_num_decoder_layers", model.layers);
  expect_model_size(m, "vocab_size", model.vocab);
  if (model.is_moe()) {
    expect_model_size(m, "num_experts", model.experts);
    expect_model_size(m, "num_experts_per_tok", model.topk);
    expect_model_size(m, "base_moe_mlp_dim", model.moe_ffn);
  }
  for (const auto& kv : maxtext_architecture_args(model)) {
    const auto eq = kv.find('=');
    const auto it = m.keys.find(std::string_view(kv).substr(0, eq));
    // enable_dropout changes no step time; a run with it is the same model.
    if (it == m.keys.end() || it->first == "enable_dropout")
      continue;
    if (!same_maxtext_value(it->second, std::string_view(kv).substr(eq + 1)))
      throw input_error(m.described(it->first) + " is not the experiment's model ("
                        + kv.substr(eq + 1) + ")");
  }
}

} // namespace

maxtext_launch read_maxtext_args(std::span<const std::string> overrides,
                                 const maxtext_launch& base) {
  const auto model = with_model_file(split_overrides(overrides));
  const auto& m = model.keys;
  maxtext_launch out = base;
  const int slices = std::max(1, base.dcn.chips());
  const int per_slice = base.chips / slices;
  out.ici = read_mesh(m, "ici", base.ici, per_slice);
  out.dcn = read_mesh(m, "dcn", base.dcn, slices);
  expect_model(model, base.model);
  auto& w = out.workload;
  if (const auto seq = whole_in(m, "max_target_length", 1))
    w.seq_len = *seq;
  if (const auto steps = whole_in(m, "gradient_accumulation_steps", 1))
    w.accumulation_steps = *steps;
  if (const auto per_device = number_in(m, "per_device_batch_size")) {
    if (*per_device <= 0)
      throw input_error("MaxText override per_device_batch_size must be positive");
    // MaxText's micro batch is int(devices x per-device batch), times the
    // accumulation steps (types.py:3464-3466).
    const auto micro = int64_t(double(base.chips) * *per_device);
    if (micro < 1)
      throw input_error("MaxText override per_device_batch_size="
                        + m.find("per_device_batch_size")->second
                        + " trains no whole sequence on " + std::to_string(base.chips) + " chips");
    w.global_batch = int(micro * w.accumulation_steps);
  }
  if (const auto it = m.find("remat_policy"); it != m.end()
                                               && !parse_remat_policy(it->second, w.remat))
    throw input_error("MaxText override remat_policy=" + it->second + " is not one of "
                      + remat_policy_names());
  return out;
}

} // namespace paratune
