#include "core/tpu/maxtext_rules.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>

#include "core/message_template.hpp"
#include "core/tpu/maxtext_model_table.hpp"
#include "core/tpu/maxtext_value.hpp"

namespace paratune {

namespace {

// MaxText's mesh_axes at maxtext_rules_commit (configs/base.yml:531) and
// the key each axis reads (configs/types.py:4325, the ici_map / dcn_map).
struct mesh_axis_key {
  std::string_view axis;
  std::string_view key;  ///< after the ici_ / dcn_ prefix
};
constexpr std::array<mesh_axis_key, 12> maxtext_mesh_axes = {{
    {"diloco", "diloco_parallelism"},
    {"data", "data_parallelism"},
    {"stage", "pipeline_parallelism"},
    {"fsdp", "fsdp_parallelism"},
    {"fsdp_transpose", "fsdp_transpose_parallelism"},
    {"context", "context_parallelism"},
    {"context_usp_ulysses", "context_usp_ulysses_parallelism"},
    {"context_autoregressive", "context_autoregressive_parallelism"},
    {"tensor", "tensor_parallelism"},
    {"tensor_sequence", "tensor_sequence_parallelism"},
    {"expert", "expert_parallelism"},
    {"autoregressive", "autoregressive_parallelism"},
}};

// The policy names get_remat_policy has a branch for (layers/decoders.py:350-432).
constexpr std::array<std::string_view, 15> known_remat_policies = {
    "none", "minimal_with_context", "minimal_flash", "minimal", "minimal_with_quantization",
    "minimal_with_context_and_quantization", "save_dot_with_context_except_mlp",
    "save_dot_except_mlpwi", "save_dot_except_mlp", "save_qkv_proj", "qkv_proj_offloaded",
    "minimal_offloaded", "custom", "save_out_proj", "full"};

// The overrides as MaxText's config would hold them: the last of a key wins,
// as it does on MaxText's command line.
using override_map = std::map<std::string, std::string, std::less<>>;

override_map read_overrides(std::span<const std::string> overrides) {
  override_map out;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq != std::string::npos)
      out[o.substr(0, eq)] = o.substr(eq + 1);
  }
  return out;
}

std::optional<double> number_of(const override_map& m, std::string_view key) {
  const auto it = m.find(key);
  if (it == m.end())
    return std::nullopt;
  double v = 0;
  const auto& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

double number_or(const override_map& m, std::string_view key, double fallback) {
  return number_of(m, key).value_or(fallback);
}

std::string whole(double v) { return std::to_string(int64_t(v)); }

// Python's str() of a float: "0.5", "2.0".
std::string python_float(double v) {
  if (v == std::floor(v))
    return std::to_string(int64_t(v)) + ".0";
  std::array<char, 32> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), end);
}

maxtext_finding finding(maxtext_rule r, const template_values& values) {
  return {r, fill_placeholders(row_of(r).message, values)};
}

// fill_unspecified_mesh_axes (utils/max_utils.py:461-482): one -1 axis
// takes what the others leave; then the product must be the target.
void check_mesh(const override_map& m, std::string_view prefix, int target, maxtext_rule rule,
                std::vector<maxtext_finding>& out) {
  double product = 1;
  bool has_auto = false;
  for (const auto& a : maxtext_mesh_axes) {
    const std::string key = std::string(prefix) + "_" + std::string(a.key);
    const bool auto_default = (prefix == "ici" && a.axis == "fsdp")
                              || (prefix == "dcn" && a.axis == "data");
    const double v = number_or(m, key, auto_default ? -1 : 1);
    if (v == -1)
      has_auto = true;
    else
      product *= v;
  }
  // A -1 axis that divides evenly makes the product the target; one that
  // does not fails the assert before this one (max_utils.py:472), which
  // paratune never meets: it writes every axis.
  if (has_auto && product > 0 && std::fmod(target, product) == 0)
    return;
  if (product != target)
    out.push_back(finding(rule, {{"target", std::to_string(target)}, {"product", whole(product)}}));
}

void check_sequence(const override_map& m, std::vector<maxtext_finding>& out) {
  for (std::string_view key : {"ici_sequence_parallelism", "dcn_sequence_parallelism"}) {
    const double v = number_or(m, key, 1);
    if (v != 1)
      out.push_back(finding(maxtext_rule::sequence_axis_ignored,
                            {{"key", std::string(key)}, {"size", whole(v)}}));
  }
}

void check_batch(const override_map& m, const maxtext_target& t, std::vector<maxtext_finding>& out) {
  if (t.global_batch <= 0)
    return;
  const double per_device = number_or(m, "per_device_batch_size", 12.0);
  const double steps = number_or(m, "gradient_accumulation_steps", 1);
  const int64_t devices = int64_t(t.chips_per_slice) * t.slices;
  const auto micro = int64_t(double(devices) * per_device);
  const auto trained = int64_t(double(micro) * steps);
  if (trained != t.global_batch)
    out.push_back(finding(maxtext_rule::global_batch_trained,
                          {{"devices", std::to_string(devices)},
                           {"per_device", python_float(per_device)},
                           {"steps", whole(steps)},
                           {"trained", std::to_string(trained)},
                           {"batch", std::to_string(t.global_batch)}}));
}

void check_moe(const override_map& m, std::vector<maxtext_finding>& out) {
  if (number_or(m, "num_experts", 1) <= 1)
    return;
  const double moe_dim = number_or(m, "base_moe_mlp_dim", -1);
  if (moe_dim <= 0) {
    out.push_back(finding(maxtext_rule::moe_mlp_dim_positive, {}));
    return;
  }
  const bool fully_moe = number_or(m, "interleave_moe_layer_step", 1) == 1
                         && number_or(m, "first_num_dense_layers", 0) == 0
                         && number_or(m, "inhomogeneous_layer_cycle_interval", 1) == 1;
  const auto block = m.find("decoder_block");
  const bool exempt = block != m.end() && (block->second == "qwen3_moe" || block->second == "gemma4");
  const double mlp_dim = number_or(m, "base_mlp_dim", 7168);
  if (fully_moe && !exempt && mlp_dim != moe_dim)
    out.push_back(finding(maxtext_rule::fully_moe_mlp_dims,
                          {{"base_mlp_dim", whole(mlp_dim)}, {"base_moe_mlp_dim", whole(moe_dim)}}));
}

bool listed(std::span<const std::string_view> names, std::string_view v) {
  return std::find(names.begin(), names.end(), v) != names.end();
}

// What pyconfig checks while it loads the config: the model file's keys
// against the command line's (pyconfig.py:128-150), then pydantic's types
// of model_name and decoder_block. Returns the overrides with the model
// file's keys under them, as MaxText merges them (pyconfig.py:514).
override_map check_model(const override_map& m, std::vector<maxtext_finding>& out) {
  override_map merged = m;
  const auto name = m.find("model_name");
  const auto* file = name == m.end() ? nullptr : maxtext_model_file_of(name->second);
  if (file) {
    const auto lenient = m.find("override_model_config");
    const bool override_allowed = lenient != m.end()
                                  && (lenient->second == "true" || lenient->second == "True");
    std::string keys;
    for (const auto& s : file->settings) {
      const auto it = m.find(s.key);
      if (it != m.end() && !override_allowed && !same_maxtext_value(it->second, s.value))
        keys += std::string(keys.empty() ? "" : ", ") + "'" + std::string(s.key) + "'";
      merged.emplace(std::string(s.key), std::string(s.value));
    }
    if (!keys.empty()) {
      out.push_back(finding(maxtext_rule::model_keys_overridden, {{"keys", "[" + keys + "]"}}));
      return merged;
    }
  }
  if (name != m.end() && !listed(maxtext_model_names(), name->second))
    out.push_back(finding(maxtext_rule::model_name_known, {{"value", name->second}}));
  const auto block = merged.find("decoder_block");
  if (block != merged.end() && !listed(maxtext_decoder_blocks(), block->second))
    out.push_back(finding(maxtext_rule::decoder_block_known, {{"value", block->second}}));
  return merged;
}

void check_remat(const override_map& m, std::vector<maxtext_finding>& out) {
  const auto it = m.find("remat_policy");
  const std::string_view policy = it == m.end() ? std::string_view("full") : it->second;
  bool known = false;
  for (auto name : known_remat_policies)
    known = known || name == policy;
  if (!known) {
    out.push_back(finding(maxtext_rule::remat_policy_known, {}));
    return;
  }
  if (policy == "minimal_flash")
    out.push_back(finding(maxtext_rule::remat_minimal_flash, {}));
  const auto nnx = m.find("pure_nnx_decoder");
  const bool linen = nnx != m.end() && (nnx->second == "false" || nnx->second == "False");
  if (policy == "none" && linen)
    out.push_back(finding(maxtext_rule::remat_none_decoder, {}));
}

} // namespace

std::string maxtext_finding::printed() const {
  const auto& r = row();
  if (r.effect != maxtext_effect::refuses)
    return message;
  return std::string(python_error_name(r.error)) + ": " + message;
}

std::vector<maxtext_finding> check_maxtext_overrides(std::span<const std::string> overrides,
                                                     const maxtext_target& target) {
  std::vector<maxtext_finding> out;
  const auto m = check_model(read_overrides(overrides), out);
  // A config pyconfig refuses never reaches types.py's checks.
  if (!out.empty())
    return out;
  check_batch(m, target, out);
  check_moe(m, out);
  check_sequence(m, out);
  check_mesh(m, "ici", target.chips_per_slice, maxtext_rule::ici_product, out);
  if (target.slices > 1)
    check_mesh(m, "dcn", target.slices, maxtext_rule::dcn_product, out);
  check_remat(m, out);
  return out;
}

std::vector<maxtext_finding> refusals(const std::vector<maxtext_finding>& findings) {
  std::vector<maxtext_finding> out;
  for (const auto& f : findings)
    if (f.refuses())
      out.push_back(f);
  return out;
}

} // namespace paratune
