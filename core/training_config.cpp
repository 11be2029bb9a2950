#include "core/training_config.hpp"

#include <cstring>
#include <functional>

#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

const char* to_string(recompute_mode m) {
  switch (m) {
    case recompute_mode::none: return "none";
    case recompute_mode::selective: return "selective";
    case recompute_mode::full: return "full";
  }
  return "none";
}

bool parse_recompute(const std::string& text, recompute_mode& out) {
  if (text == "none") out = recompute_mode::none;
  else if (text == "selective" || text == "sel") out = recompute_mode::selective;
  else if (text == "full") out = recompute_mode::full;
  else return false;
  return true;
}

int training_config::data_parallel(int world_size) const {
  if (tp <= 0 || pp <= 0 || cp <= 0)
    return 0;
  const int64_t model = model_parallel();
  if (world_size <= 0 || world_size % model != 0)
    return 0;
  return static_cast<int>(world_size / model);
}

int training_config::micro_batches(int world_size) const {
  const int64_t dp = data_parallel(world_size);
  if (dp == 0 || mbs <= 0 || gbs % (mbs * dp) != 0)
    return 0;
  return static_cast<int>(gbs / (mbs * dp));
}

namespace {

bool parse_bool(const std::string& key, const std::string& text) {
  if (text == "1" || text == "true" || text == "True" || text == "on")
    return true;
  if (text == "0" || text == "false" || text == "False" || text == "off")
    return false;
  throw input_error("config key '" + key + "': expected true or false, got '"
                    + text + "'");
}

/// One row per key: what it is, and how to read and write it as text.
struct key_binding {
  config_key info;
  std::function<std::string(const training_config&)> get;
  std::function<void(training_config&, const std::string&)> set;
};

// `display` is OptiCo's name, where it is not the key in upper case.
std::string display_or_upper(const std::string& key, const std::string& display) {
  return display.empty() ? upper(key) : display;
}

key_binding int_key(std::string key, int training_config::*field, value_range range,
                    std::string display = "") {
  return {{key, field, nullptr, nullptr, display_or_upper(key, display), range},
          [field](const training_config& c) { return std::to_string(c.*field); },
          [key, field, range](training_config& c, const std::string& v) {
            c.*field = parse_int_field("config key '" + key + "'", v, range);
          }};
}

key_binding bool_key(std::string key, bool training_config::*field, std::string display = "") {
  return {{key, nullptr, field, nullptr, display_or_upper(key, display), {0, 1}},
          [field](const training_config& c) {
            return std::string(c.*field ? "true" : "false");
          },
          [key, field](training_config& c, const std::string& v) {
            c.*field = parse_bool(key, v);
          }};
}

// Ranges: a parallel size is at most the largest job; a layer count at most
// the deepest model a model file may describe (model_dimensions()); batch and
// sequence sizes far beyond any published run, small enough that their
// products stay exact in 64 bits and in a double.
constexpr value_range parallel_size{1, max_devices};
constexpr value_range layer_count{0, 16384};

// The table of keys, in canonical order (see config_key).
const std::vector<key_binding>& bindings() {
  static const std::vector<key_binding> all = {
    int_key("tp", &training_config::tp, parallel_size),
    int_key("pp", &training_config::pp, parallel_size),
    int_key("cp", &training_config::cp, parallel_size),
    int_key("ep", &training_config::ep, parallel_size),
    int_key("vpp", &training_config::vpp, {1, 16384}),
    int_key("mbs", &training_config::mbs, {1, 65536}),
    int_key("gbs", &training_config::gbs, {1, int64_t(1) << 24}, "GLOBAL_BATCH_SIZE"),
    int_key("seq", &training_config::seq, {1, int64_t(1) << 24}, "SEQ_LENGTH"),
    bool_key("sp", &training_config::sp, "SEQUENCE_PARALLEL"),
    {{"recompute", nullptr, nullptr, &training_config::recompute, "AC", {0, 2}},
     [](const training_config& c) { return std::string(to_string(c.recompute)); },
     [](training_config& c, const std::string& v) {
       if (!parse_recompute(v, c.recompute))
         throw input_error("config key 'recompute': expected none, selective "
                           "or full, got '" + v + "'");
     }},
    {{"recompute_method", nullptr, &training_config::recompute_block, nullptr, "AC_METHOD",
      {0, 1}},
     [](const training_config& c) {
       return std::string(c.recompute_block ? "block" : "uniform");
     },
     [](training_config& c, const std::string& v) {
       if (v != "block" && v != "uniform")
         throw input_error("config key 'recompute_method': expected uniform "
                           "or block, got '" + v + "'");
       c.recompute_block = v == "block";
     }},
    int_key("recompute_layers", &training_config::recompute_layers, layer_count, "AC_LAYERS"),
    bool_key("dist_opt", &training_config::dist_opt, "DISTRIBUTED_OPTIMIZER"),
    bool_key("overlap_grad", &training_config::overlap_grad, "OVERLAP_GRAD_REDUCE"),
    bool_key("overlap_param", &training_config::overlap_param, "OVERLAP_PARAM_GATHER"),
    bool_key("fused_ce", &training_config::fused_ce, "FUSED_CROSS_ENTROPY"),
    int_key("first_pp_layers", &training_config::first_pp_layers, layer_count,
            "FIRST_PP_NUM_LAYERS"),
    int_key("last_pp_layers", &training_config::last_pp_layers, layer_count,
            "LAST_PP_NUM_LAYERS"),
    bool_key("pp_account_embedding", &training_config::pp_account_embedding,
             "ACCOUNT_FOR_EMBEDDING_IN_PIPELINE_SPLIT"),
    bool_key("pp_account_loss", &training_config::pp_account_loss,
             "ACCOUNT_FOR_LOSS_IN_PIPELINE_SPLIT"),
    bool_key("grad_reduce_bf16", &training_config::grad_reduce_bf16, "GRAD_REDUCE_IN_BF16"),
  };
  return all;
}

const key_binding& binding(const std::string& key) {
  for (const auto& b : bindings())
    if (b.info.name == key)
      return b;
  throw input_error("unknown config key '" + key + "' (known: " + join(config_keys(), ", ")
                    + ")");
}

} // namespace

const std::vector<config_key>& config_key_table() {
  static const std::vector<config_key> keys = [] {
    std::vector<config_key> out;
    for (const auto& b : bindings())
      out.push_back(b.info);
    return out;
  }();
  return keys;
}

const config_key* find_config_key(std::string_view name) {
  for (const auto& k : config_key_table())
    if (k.name == name)
      return &k;
  return nullptr;
}

const std::vector<std::string>& config_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& k : config_key_table())
      out.push_back(k.name);
    return out;
  }();
  return keys;
}

std::string get_value(const training_config& c, const std::string& key) {
  return binding(key).get(c);
}

void set_value(training_config& c, const std::string& key,
               const std::string& value) {
  binding(key).set(c, value);
}

training_config parse_config(const std::string& text, training_config base) {
  for (const auto& piece : split(text, ',')) {
    const auto item = trim(piece);
    if (item.empty())
      continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw input_error("config item '" + item + "': expected KEY=VALUE");
    set_value(base, trim(item.substr(0, eq)), trim(item.substr(eq + 1)));
  }
  return base;
}

std::string canonical_key(const training_config& c) {
  std::string out;
  for (const auto& b : bindings()) {
    if (!out.empty())
      out += ',';
    out += b.info.name + '=' + b.get(c);
  }
  return out;
}

std::string fingerprint(const training_config& c) {
  // Every key's field as a native int, in table order: no text, no lookups.
  const auto& keys = config_key_table();
  std::string out(keys.size() * sizeof(int), '\0');
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const int v = keys[i].read(c);
    std::memcpy(out.data() + i * sizeof v, &v, sizeof v);
  }
  return out;
}

std::map<std::string, std::string> to_map(const training_config& c) {
  std::map<std::string, std::string> out;
  for (const auto& b : bindings())
    out[b.info.name] = b.get(c);
  return out;
}

std::string describe_change(const training_config& from,
                            const training_config& to) {
  std::string out;
  for (const auto& b : bindings()) {
    auto before = b.get(from);
    auto after = b.get(to);
    if (before == after)
      continue;
    if (!out.empty())
      out += ", ";
    out += b.info.name + ' ' + before + "->" + after;
  }
  return out.empty() ? "initial" : out;
}

} // namespace paratune
