#include "adapters/config/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "adapters/config/executable_paths.hpp"
#include "adapters/config/hf_config.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"
#include "core/job_file_reference.hpp"
#include "core/model_dimensions.hpp"
#include "core/text.hpp"

namespace paratune {

namespace fs = std::filesystem;
using yaml_fields::optional;
using yaml_fields::optional_int;
using yaml_fields::optional_real;
using yaml_fields::required_int;
using yaml_fields::required_real;
using yaml_fields::required;

namespace {

// What model_from_mapping() and cluster_from_mapping() read, key by key: a
// key added to a reader goes into its list, or files using it are refused.
constexpr std::string_view model_keys[] = {
  "name", "family", "size", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn",
  "vocab", "swiglu", "rmsnorm", "tied_embeddings", "experts", "topk", "moe_ffn", "max_seq",
  "shared_expert_ffn", "position_embedding", "rotary_base", "rope_scaling_factor",
  "bias_linear", "qkv_bias", "qk_layernorm", "norm_epsilon", "hf_config"};
// Beside `hf_config:` only the labels: the config gives every field.
constexpr std::string_view hf_config_keys[] = {"hf_config", "name", "family", "size"};
constexpr std::string_view cluster_keys[] = {"name", "devices_per_node", "max_nodes",
                                             "ici_topology", "device", "scale_up",
                                             "scale_out"};
constexpr std::string_view device_keys[] = {"name", "peak_tflops_16", "peak_tflops_fp8",
                                            "hbm_gib", "hbm_gbps", "tpu",
                                            "compute_capability"};
constexpr std::string_view link_keys[] = {"name", "gbps", "latency_us"};

std::string inside_of(const std::string& inside, const char* field) {
  return inside.empty() ? std::string(field) : inside + ": " + field;
}

// What changes the built model beyond its sizes; a key left out takes the
// style default (set_style_defaults) or Megatron-LM's.
void read_architecture(const YAML::Node& n, const std::string& where, model_spec& m) {
  set_style_defaults(m);
  if (n["position_embedding"]) {
    const auto word = required<std::string>(n, "position_embedding", where);
    if (!parse_position_embedding(word, m.position))
      throw input_error(yaml_fields::field_at(n["position_embedding"], "position_embedding",
                                              where)
                        + ": expected learned_absolute, rope or none, got '" + word + "'");
  }
  m.rotary_base = optional_int(n, "rotary_base", where,
                               find_model_dimension("rotary_base")->range, m.rotary_base);
  // Llama 3.1 scales by 8; a factor below 1 would shrink the context.
  m.rope_scaling_factor = optional_real(n, "rope_scaling_factor", where, 0.0, 1e6, 0.0);
  if (m.rope_scaling_factor > 0 && m.rope_scaling_factor < 1)
    throw input_error(yaml_fields::field_at(n["rope_scaling_factor"], "rope_scaling_factor", where)
                      + ": expected 0 (none) or at least 1");
  if (m.position != position_embedding::rope && (n["rotary_base"] || m.rope_scaling_factor > 0)) {
    const char* key = n["rotary_base"] ? "rotary_base" : "rope_scaling_factor";
    throw input_error(yaml_fields::field_at(n[key], key, where)
                      + " needs position_embedding: rope");
  }
  m.bias_linear = yaml_fields::optional_flag(n, "bias_linear", where, m.bias_linear);
  m.qkv_bias = yaml_fields::optional_flag(n, "qkv_bias", where, false);
  m.qk_layernorm = yaml_fields::optional_flag(n, "qk_layernorm", where, false);
  // RMSNorm and LayerNorm epsilons in published configs lie in 1e-12..1e-3.
  m.norm_epsilon = optional_real(n, "norm_epsilon", where, 1e-12, 1e-1, m.norm_epsilon);
}

} // namespace

void refuse_unknown_model_keys(const YAML::Node& n, const std::string& file,
                               const std::string& inside) {
  yaml_fields::refuse_unknown_keys(n, model_keys, file, inside);
}

void refuse_unknown_cluster_keys(const YAML::Node& n, const std::string& file,
                                 const std::string& inside) {
  yaml_fields::refuse_unknown_keys(n, cluster_keys, file, inside);
  if (const auto d = n["device"]; d && d.IsMap())
    yaml_fields::refuse_unknown_keys(d, device_keys, file, inside_of(inside, "device"));
  for (const char* link : {"scale_up", "scale_out"})
    if (const auto l = n[link]; l && l.IsMap())
      yaml_fields::refuse_unknown_keys(l, link_keys, file, inside_of(inside, link));
}

namespace {

// `{hf_config: path/config.json}` (with an optional name, family or size):
// the Hugging Face config in `folder` (the job's or the model file's).
model_spec model_from_hf_mapping(const YAML::Node& n, const std::string& where,
                                 const std::string& folder) {
  for (const auto& kv : n) {
    const auto key = kv.first.Scalar();
    if (std::find(std::begin(hf_config_keys), std::end(hf_config_keys), key)
        == std::end(hf_config_keys))
      throw input_error(where + ": line " + std::to_string(kv.first.Mark().line + 1)
                        + ": field '" + key + "' beside 'hf_config': the Hugging Face config "
                        "gives the model's fields (only name, family and size may be given "
                        "with it)");
  }
  const auto file = required<std::string>(n, "hf_config", where);
  auto m = model_from_hf_config(resolve_in_job_folder(file, folder),
                                optional<std::string>(n, "name", where, ""));
  m.family = optional<std::string>(n, "family", where, m.family);
  m.size = optional<std::string>(n, "size", where, m.size);
  return m;
}

} // namespace

model_spec model_from_mapping(const YAML::Node& n, const std::string& where,
                              const std::string& folder) {
  if (!n.IsMap())
    throw input_error(where + ": expected a mapping of the model's fields");
  refuse_unknown_model_keys(n, where);
  if (n["hf_config"])
    return model_from_hf_mapping(n, where, folder);
  auto dimension = [&](const char* key, int fallback) {
    return optional_int(n, key, where, find_model_dimension(key)->range, fallback);
  };
  model_spec m;
  m.name = required<std::string>(n, "name", where);
  m.family = optional<std::string>(n, "family", where, m.name);
  m.size = optional<std::string>(n, "size", where, "");
  for (const char* key : {"layers", "hidden", "heads", "vocab"})
    if (!n[key])
      throw input_error(where + ": missing field '" + key + "'");
  m.layers = dimension("layers", 0);
  m.hidden = dimension("hidden", 0);
  m.heads = dimension("heads", 0);
  m.kv_heads = dimension("kv_heads", m.heads);
  m.head_dim = dimension("head_dim", 0);
  m.ffn = dimension("ffn", 4 * m.hidden);
  m.vocab = dimension("vocab", 0);
  m.swiglu = yaml_fields::optional_flag(n, "swiglu", where, false);
  m.rmsnorm = yaml_fields::optional_flag(n, "rmsnorm", where, false);
  m.tied_embeddings = yaml_fields::optional_flag(n, "tied_embeddings", where, true);
  m.experts = dimension("experts", 0);
  m.topk = dimension("topk", m.experts > 0 ? 1 : 0);
  m.moe_ffn = dimension("moe_ffn", m.experts > 0 ? m.ffn : 0);
  m.max_seq = dimension("max_seq", 0);
  m.shared_expert_ffn = dimension("shared_expert_ffn", 0);
  read_architecture(n, where, m);
  check_model(m, where);
  return m;
}

YAML::Node model_mapping(const model_spec& m) {
  YAML::Node n;
  n["name"] = m.name;
  n["family"] = m.family;
  if (!m.size.empty())
    n["size"] = m.size;
  for (const auto& d : model_dimensions())
    if (m.*d.field != 0 || std::string(d.name) == "layers")
      n[d.name] = m.*d.field;
  n["swiglu"] = m.swiglu;
  n["rmsnorm"] = m.rmsnorm;
  n["tied_embeddings"] = m.tied_embeddings;
  n["position_embedding"] = to_string(m.position);
  if (m.position != position_embedding::rope)
    n.remove("rotary_base");
  if (m.rope_scaling_factor > 0)
    n["rope_scaling_factor"] = m.rope_scaling_factor;
  n["bias_linear"] = m.bias_linear;
  n["qkv_bias"] = m.qkv_bias;
  n["qk_layernorm"] = m.qk_layernorm;
  n["norm_epsilon"] = m.norm_epsilon;
  return n;
}

namespace {

// Upper ends far above any machine built: they catch a unit mistake (TFLOPS
// written as FLOPS) rather than judge the hardware.
link_spec link_from_yaml(const YAML::Node& n, const std::string& where) {
  link_spec l;
  l.name = required<std::string>(n, "name", where);
  l.gbps = required_real(n, "gbps", where, 1e-3, 1e7);
  l.latency_us = optional_real(n, "latency_us", where, 0.0, 1e6, 0.0);
  return l;
}

} // namespace

cluster_spec cluster_from_mapping(const YAML::Node& n, const std::string& where) {
  if (!n.IsMap())
    throw input_error(where + ": expected a mapping of the cluster's fields");
  refuse_unknown_cluster_keys(n, where);
  cluster_spec c;
  c.name = required<std::string>(n, "name", where);
  c.devices_per_node = required_int(n, "devices_per_node", where, {1, 1024});
  c.max_nodes = optional_int(n, "max_nodes", where, {0, max_devices}, 0);
  c.ici_topology = optional<std::string>(n, "ici_topology", where, "");
  const auto d = n["device"];
  if (!d || !d.IsMap())
    throw input_error(where + ": missing field 'device'");
  const auto dwhere = where + ": device";
  c.device.name = required<std::string>(d, "name", dwhere);
  c.device.peak_tflops_16 = required_real(d, "peak_tflops_16", dwhere, 1e-3, 1e6);
  c.device.peak_tflops_fp8 = optional_real(d, "peak_tflops_fp8", dwhere, 0.0, 1e6, 0.0);
  c.device.hbm_gib = required_real(d, "hbm_gib", dwhere, 1e-3, 1e5);
  c.device.hbm_gbps = required_real(d, "hbm_gbps", dwhere, 1e-3, 1e7);
  c.device.tpu = yaml_fields::optional_flag(d, "tpu", dwhere, false);
  c.device.compute_capability = optional_real(d, "compute_capability", dwhere, 0.0, 100.0, 0.0);
  if (!n["scale_up"] || !n["scale_out"])
    throw input_error(where + ": missing field '"
                      + std::string(n["scale_up"] ? "scale_out" : "scale_up") + "'");
  c.scale_up = link_from_yaml(n["scale_up"], where + ": scale_up");
  c.scale_out = link_from_yaml(n["scale_out"], where + ": scale_out");
  return c;
}

namespace {

std::vector<std::string> yaml_stems(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A catalog name is a file name stem: letters, digits, '.', '_' and '-'.
bool catalog_name(const std::string& name) {
  return is_plain_name(name, 128) && name.front() != '.';
}

std::string catalog_file(const std::string& kind, const std::string& name,
                         const std::vector<std::string>& known) {
  const auto path = configs_dir() + "/" + kind + "/" + lower(name) + ".yaml";
  std::error_code ec;
  if (catalog_name(name) && fs::is_regular_file(path, ec))
    return path;
  if (name.size() > 128)
    throw input_error("unknown " + kind.substr(0, kind.size() - 1) + " (a name of "
                      + std::to_string(name.size()) + " characters; catalog names have at most "
                      "128; known: " + join(known, ", ") + ")");
  throw input_error("unknown " + kind.substr(0, kind.size() - 1) + " '" + name
                    + "' (known: " + join(known, ", ") + ")");
}

} // namespace

std::string configs_dir() {
  if (const char* env = std::getenv("PARATUNE_CONFIGS"); env && *env)
    return env;
  // build/bin/paratune -> <source>/configs
  if (auto dir = find_above_executable(
          "configs", [](const fs::path& d) { return fs::is_directory(d / "models"); }))
    return dir->string();
  return "configs";
}

model_spec load_model(const std::string& name_or_file) {
  if (names_an_hf_config(name_or_file))
    return model_from_hf_config(name_or_file);
  const auto path = names_a_file(name_or_file)
                      ? name_or_file
                      : catalog_file("models", name_or_file, model_names());
  // A model file's hf_config: path means the file beside it.
  return model_from_mapping(yaml_fields::load_file(path), path,
                            fs::absolute(path).parent_path().string());
}

model_spec find_model(const std::string& family, const std::string& size) {
  return load_model(lower(family) + "-" + lower(size));
}

model_spec parse_inline_model(const std::string& dims) {
  std::map<std::string, int> v;
  for (const auto& item : split(dims, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw input_error("model dimensions: expected KEY=VALUE, got '" + item + "'");
    const auto key = trim(item.substr(0, eq));
    const auto* d = find_model_dimension(key);
    // max_seq and rotary_base change no prediction: model files only.
    if (key != "swiglu" && (!d || key == "max_seq" || key == "rotary_base"))
      throw input_error("unknown model dimension '" + key
                        + "' (known: layers, hidden, heads, kv_heads, head_dim, ffn, vocab, "
                          "swiglu, experts, topk, moe_ffn, shared_expert_ffn)");
    if (v.count(key))
      throw input_error("model dimension '" + key + "' is given twice");
    const auto text = trim(item.substr(eq + 1));
    // swiglu is a flag: YAML's words for one (an experiment file's inline
    // model comes here as `swiglu: true`), or 0 and 1.
    const auto word = lower(text);
    if (key == "swiglu" && (word == "true" || word == "yes" || word == "on"))
      v[key] = 1;
    else if (key == "swiglu" && (word == "false" || word == "no" || word == "off"))
      v[key] = 0;
    else
      v[key] = parse_int_field("model dimension '" + key + "'", text,
                               d ? d->range : value_range{0, 1});
  }
  for (const char* key : {"layers", "hidden", "heads", "vocab"})
    if (!v.count(key))
      throw input_error(std::string("model dimensions: '") + key + "' is required");
  auto given = [&](const char* key, int fallback) { return v.count(key) ? v[key] : fallback; };
  model_spec m;
  m.name = "inline";
  m.family = "custom";
  m.layers = v["layers"];
  m.hidden = v["hidden"];
  m.heads = v["heads"];
  m.kv_heads = given("kv_heads", m.heads);
  m.ffn = given("ffn", 4 * m.hidden);
  m.vocab = v["vocab"];
  m.swiglu = given("swiglu", 0) == 1;
  m.rmsnorm = m.swiglu;
  m.tied_embeddings = !m.swiglu;
  m.experts = given("experts", 0);
  m.topk = given("topk", m.experts > 0 ? 1 : 0);
  m.moe_ffn = given("moe_ffn", m.experts > 0 ? m.ffn : 0);
  m.head_dim = given("head_dim", 0);
  m.shared_expert_ffn = given("shared_expert_ffn", 0);
  set_style_defaults(m);
  check_model(m, "model dimensions");
  return m;
}

cluster_spec load_cluster(const std::string& name_or_file) {
  if (name_or_file.starts_with('{'))
    return cluster_from_mapping(yaml_fields::load_text(name_or_file, "inline cluster"),
                                "inline cluster");
  const auto path = names_a_file(name_or_file)
                      ? name_or_file
                      : catalog_file("clusters", name_or_file, cluster_names());
  return cluster_from_mapping(yaml_fields::load_file(path), path);
}

std::vector<std::string> model_names() {
  return yaml_stems(configs_dir() + "/models");
}

std::vector<std::string> cluster_names() {
  return yaml_stems(configs_dir() + "/clusters");
}

} // namespace paratune
