#include "adapters/config/catalog.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "adapters/config/executable_paths.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

namespace fs = std::filesystem;
using yaml_fields::optional;
using yaml_fields::required;

namespace {

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || s.ends_with(".yaml")
         || s.ends_with(".yml");
}

void check_positive(const std::string& where, const char* key, int v) {
  if (v <= 0)
    throw input_error(where + ": field '" + key + "' must be positive, got "
                      + std::to_string(v));
}

model_spec model_from_yaml(const YAML::Node& n, const std::string& where) {
  model_spec m;
  m.name = required<std::string>(n, "name", where);
  m.family = optional<std::string>(n, "family", where, m.name);
  m.size = optional<std::string>(n, "size", where, "");
  m.layers = required<int>(n, "layers", where);
  m.hidden = required<int>(n, "hidden", where);
  m.heads = required<int>(n, "heads", where);
  m.kv_heads = optional<int>(n, "kv_heads", where, m.heads);
  m.head_dim = optional<int>(n, "head_dim", where, 0);
  m.ffn = optional<int>(n, "ffn", where, 4 * m.hidden);
  m.vocab = required<int>(n, "vocab", where);
  m.swiglu = optional<bool>(n, "swiglu", where, false);
  m.rmsnorm = optional<bool>(n, "rmsnorm", where, false);
  m.tied_embeddings = optional<bool>(n, "tied_embeddings", where, true);
  m.experts = optional<int>(n, "experts", where, 0);
  m.topk = optional<int>(n, "topk", where, m.experts > 0 ? 1 : 0);
  m.moe_ffn = optional<int>(n, "moe_ffn", where, m.experts > 0 ? m.ffn : 0);
  m.max_seq = optional<int>(n, "max_seq", where, 0);
  for (auto [key, v] : {std::pair{"layers", m.layers}, {"hidden", m.hidden},
                        {"heads", m.heads}, {"kv_heads", m.kv_heads},
                        {"ffn", m.ffn}, {"vocab", m.vocab}})
    check_positive(where, key, v);
  return m;
}

link_spec link_from_yaml(const YAML::Node& n, const std::string& where) {
  link_spec l;
  l.name = required<std::string>(n, "name", where);
  l.gbps = required<double>(n, "gbps", where);
  l.latency_us = optional<double>(n, "latency_us", where, 0.0);
  return l;
}

cluster_spec cluster_from_yaml(const YAML::Node& n, const std::string& where) {
  cluster_spec c;
  c.name = required<std::string>(n, "name", where);
  c.devices_per_node = required<int>(n, "devices_per_node", where);
  c.max_nodes = optional<int>(n, "max_nodes", where, 0);
  c.ici_topology = optional<std::string>(n, "ici_topology", where, "");
  const auto d = n["device"];
  if (!d || !d.IsMap())
    throw input_error(where + ": missing field 'device'");
  const auto dwhere = where + ": device";
  c.device.name = required<std::string>(d, "name", dwhere);
  c.device.peak_tflops_16 = required<double>(d, "peak_tflops_16", dwhere);
  c.device.peak_tflops_fp8 = optional<double>(d, "peak_tflops_fp8", dwhere, 0.0);
  c.device.hbm_gib = required<double>(d, "hbm_gib", dwhere);
  c.device.hbm_gbps = required<double>(d, "hbm_gbps", dwhere);
  c.device.tpu = optional<bool>(d, "tpu", dwhere, false);
  if (!n["scale_up"] || !n["scale_out"])
    throw input_error(where + ": missing field '"
                      + std::string(n["scale_up"] ? "scale_out" : "scale_up") + "'");
  c.scale_up = link_from_yaml(n["scale_up"], where + ": scale_up");
  c.scale_out = link_from_yaml(n["scale_out"], where + ": scale_out");
  check_positive(where, "devices_per_node", c.devices_per_node);
  return c;
}

std::vector<std::string> yaml_stems(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string catalog_file(const std::string& kind, const std::string& name,
                         const std::vector<std::string>& known) {
  const auto path = configs_dir() + "/" + kind + "/" + lower(name) + ".yaml";
  if (fs::is_regular_file(path))
    return path;
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
  const auto path = looks_like_path(name_or_file)
                      ? name_or_file
                      : catalog_file("models", name_or_file, model_names());
  return model_from_yaml(yaml_fields::load_file(path), path);
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
    const auto key = item.substr(0, eq);
    try {
      v[key] = std::stoi(item.substr(eq + 1));
    } catch (const std::exception&) {
      throw input_error("model dimension '" + key + "': expected an integer");
    }
  }
  static const char* known[] = {"layers", "hidden", "heads", "kv_heads", "ffn",
                                "vocab", "swiglu", "experts", "topk", "moe_ffn",
                                "head_dim"};
  for (const auto& [key, _] : v)
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
      throw input_error("unknown model dimension '" + key + "'");
  for (const char* key : {"layers", "hidden", "heads", "vocab"})
    if (!v.count(key) || v[key] <= 0)
      throw input_error(std::string("model dimensions: '") + key
                        + "' is required and must be positive");
  model_spec m;
  m.name = "inline";
  m.family = "custom";
  m.layers = v["layers"];
  m.hidden = v["hidden"];
  m.heads = v["heads"];
  m.kv_heads = v.count("kv_heads") ? v["kv_heads"] : m.heads;
  m.ffn = v.count("ffn") ? v["ffn"] : 4 * m.hidden;
  m.vocab = v["vocab"];
  m.swiglu = v["swiglu"] != 0;
  m.rmsnorm = m.swiglu;
  m.tied_embeddings = !m.swiglu;
  m.experts = v["experts"];
  m.topk = v.count("topk") ? v["topk"] : (m.experts > 0 ? 1 : 0);
  m.moe_ffn = v.count("moe_ffn") ? v["moe_ffn"] : (m.experts > 0 ? m.ffn : 0);
  m.head_dim = v["head_dim"];
  return m;
}

cluster_spec load_cluster(const std::string& name_or_file) {
  const auto path = looks_like_path(name_or_file)
                      ? name_or_file
                      : catalog_file("clusters", name_or_file, cluster_names());
  return cluster_from_yaml(yaml_fields::load_file(path), path);
}

std::vector<std::string> model_names() {
  return yaml_stems(configs_dir() + "/models");
}

std::vector<std::string> cluster_names() {
  return yaml_stems(configs_dir() + "/clusters");
}

} // namespace paratune
