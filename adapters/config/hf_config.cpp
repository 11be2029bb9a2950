#include "adapters/config/hf_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/model_dimensions.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

using json = nlohmann::json;

// How each architecture's config.json is read. The defaults are those of
// its configuration class in Hugging Face transformers
// (src/transformers/models/<type>/configuration_<type>.py), which a
// config.json that leaves a field out takes.
struct hf_architecture {
  const char* type;
  double rope_theta;        ///< default rope_theta
  double rms_norm_eps;      ///< default rms_norm_eps
  int head_dim;             ///< default head_dim, 0 when it is hidden / heads
  bool moe;                 ///< every decoder layer's MLP is a mixture of experts
  bool mixtral_experts;     ///< num_local_experts, intermediate_size per expert
  bool qkv_bias;            ///< bias on q/k/v_proj, none on o_proj or the MLP (Qwen2)
  bool qk_norm;             ///< RMSNorm of each head's Q and K (Qwen3)
  bool attention_bias_key;  ///< reads attention_bias (and mlp_bias for Llama)
  /// Sliding-window attention: "sliding_window" on unless null (Mistral's
  /// default is 4096), or "use_sliding_window" (Qwen, off by default).
  const char* window_key;
};

constexpr hf_architecture architectures[] = {
  {"llama", 10000, 1e-6, 0, false, false, false, false, true, nullptr},
  {"mistral", 10000, 1e-6, 0, false, false, false, false, false, "sliding_window"},
  {"mixtral", 1e6, 1e-5, 0, true, true, false, false, false, "sliding_window"},
  {"qwen2", 10000, 1e-6, 0, false, false, true, false, false, "use_sliding_window"},
  {"qwen2_moe", 10000, 1e-6, 0, true, false, true, false, false, "use_sliding_window"},
  {"qwen3", 10000, 1e-6, 128, false, false, false, true, true, "use_sliding_window"},
  {"qwen3_moe", 10000, 1e-6, 128, true, false, false, true, true, "use_sliding_window"},
};

std::string known_types() {
  std::vector<std::string> names;
  for (const auto& a : architectures)
    names.emplace_back(a.type);
  std::sort(names.begin(), names.end());
  return join(names, ", ");
}

// Reads one field of the config, naming the file and the field in errors.
class config_reader {
public:
  config_reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  [[noreturn]] void refuse(const std::string& key, const std::string& why) const {
    throw input_error(path_ + ": field '" + key + "': " + why);
  }

  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  /// Written, null included.
  bool present(const char* key) const { return j_.contains(key); }

  const json& at(const char* key) const {
    if (!has(key))
      throw input_error(path_ + ": missing field '" + key + "'");
    return j_.at(key);
  }

  std::string text(const char* key) const {
    const auto& v = at(key);
    if (!v.is_string())
      refuse(key, "expected text, got " + v.dump());
    return v.get<std::string>();
  }

  /// An integer: JSON's integers, and a float that is one exactly (1e6).
  long long integer(const char* key, long long min, long long max) const {
    const auto& v = at(key);
    double d = 0;
    if (v.is_number_integer())
      d = double(v.get<long long>());
    else if (v.is_number_float())
      d = v.get<double>();
    else
      refuse(key, "expected an integer, got " + v.dump());
    if (!std::isfinite(d) || d != std::floor(d))
      refuse(key, "expected an integer, got " + v.dump() + " (not a whole number)");
    if (d < double(min) || d > double(max))
      refuse(key, fmt::format("{} is outside the allowed range {}..{}", v.dump(), min, max));
    return static_cast<long long>(d);
  }

  int dimension(const char* key, const char* as) const {
    const auto range = find_model_dimension(as)->range;
    return int(integer(key, std::max<int64_t>(range.min, 1), range.max));
  }

  int dimension_or(const char* key, const char* as, int fallback) const {
    return has(key) ? dimension(key, as) : fallback;
  }

  double real_or(const char* key, double min, double max, double fallback) const {
    if (!has(key))
      return fallback;
    const auto& v = at(key);
    if (!v.is_number())
      refuse(key, "expected a number, got " + v.dump());
    const double d = v.get<double>();
    if (!(d >= min && d <= max))
      refuse(key, fmt::format("{} is outside the allowed range {:g}..{:g}", v.dump(), min, max));
    return d;
  }

  bool flag_or(const char* key, bool fallback) const {
    if (!has(key))
      return fallback;
    const auto& v = at(key);
    if (!v.is_boolean())
      refuse(key, "expected true or false, got " + v.dump());
    return v.get<bool>();
  }

private:
  const json& j_;
  std::string path_;
};

json read_json(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec))
    throw input_error(path + ": no such file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw input_error(path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    auto j = json::parse(text.str());
    if (!j.is_object())
      throw input_error(path + ": expected a JSON object (a Hugging Face config.json)");
    return j;
  } catch (const json::parse_error& e) {
    throw input_error(path + ": not JSON: byte " + std::to_string(e.byte) + ": "
                      + printable_excerpt(e.what(), 200));
  }
}

std::string default_name(const json& j, const std::string& path) {
  if (const auto it = j.find("_name_or_path"); it != j.end() && it->is_string()
                                                && !it->get<std::string>().empty()) {
    const auto name = it->get<std::string>();
    return std::filesystem::path(name).filename().string();
  }
  const std::filesystem::path p(path);
  if (p.filename() == "config.json" && p.has_parent_path()
      && !std::filesystem::absolute(p).parent_path().filename().empty())
    return std::filesystem::absolute(p).parent_path().filename().string();
  return p.stem().string();
}

// Llama 3.1's frequency scaling is the one scheme Megatron-LM's
// --use-rope-scaling applies, with its constants fixed (low_freq_factor 1,
// high_freq_factor 4, original context 8192: megatron/core/models/common/
// embeddings/rotary_pos_embedding.py, _apply_scaling); only the factor is
// an argument.
double rope_scaling_factor(const config_reader& r) {
  if (!r.has("rope_scaling"))
    return 0;
  const auto& s = r.at("rope_scaling");
  if (!s.is_object())
    r.refuse("rope_scaling", "expected an object or null, got " + s.dump());
  const auto type = s.value("rope_type", s.value("type", std::string()));
  if (type == "default")
    return 0;
  if (type != "llama3")
    r.refuse("rope_scaling", "rope_type '" + type + "' is not Llama 3.1's 'llama3' scheme, the "
                             "only one Megatron-LM's --use-rope-scaling applies");
  auto constant = [&](const char* key, double expected) {
    const auto it = s.find(key);
    if (it != s.end() && !(it->is_number() && it->get<double>() == expected))
      r.refuse("rope_scaling", fmt::format("{} {} differs from the {:g} Megatron-LM's "
                                           "--use-rope-scaling applies",
                                           key, it->dump(), expected));
  };
  constant("low_freq_factor", 1);
  constant("high_freq_factor", 4);
  constant("original_max_position_embeddings", 8192);
  const auto factor = s.find("factor");
  if (factor == s.end() || !factor->is_number() || !(factor->get<double>() >= 1))
    r.refuse("rope_scaling", "expected a 'factor' of at least 1");
  return factor->get<double>();
}

void read_biases(const config_reader& r, const hf_architecture& a, model_spec& m) {
  m.bias_linear = false;
  m.qkv_bias = a.qkv_bias;
  if (!a.attention_bias_key)
    return;
  const bool attention = r.flag_or("attention_bias", false);
  const bool mlp = r.flag_or("mlp_bias", false);
  if (attention && mlp) {
    m.bias_linear = true;  // every linear layer: Megatron-LM's add_bias_linear
    return;
  }
  if (attention || mlp)
    r.refuse(attention ? "attention_bias" : "mlp_bias",
             "a bias on the " + std::string(attention ? "attention projections" : "MLP")
               + " alone: Megatron-LM biases every linear layer (add_bias_linear) or only Q, K "
                 "and V (--add-qkv-bias)");
}

void read_experts(const config_reader& r, const hf_architecture& a, model_spec& m) {
  if (!a.moe)
    return;
  if (a.mixtral_experts) {
    m.experts = r.dimension("num_local_experts", "experts");
    m.moe_ffn = m.ffn;  // intermediate_size is each expert's
  } else {
    m.experts = r.dimension("num_experts", "experts");
    m.moe_ffn = r.dimension("moe_intermediate_size", "moe_ffn");
    if (r.has("shared_expert_intermediate_size"))
      m.shared_expert_ffn = int(r.integer("shared_expert_intermediate_size", 0,
                                          find_model_dimension("shared_expert_ffn")->range.max));
    // Every layer an MoE layer: what paratune's model and launch assume.
    if (r.has("decoder_sparse_step") && r.integer("decoder_sparse_step", 1, 1 << 20) != 1)
      r.refuse("decoder_sparse_step", "MoE layers mixed with dense ones (a step other than 1) "
                                      "are not modelled");
    if (r.has("mlp_only_layers")) {
      const auto& dense = r.at("mlp_only_layers");
      if (!dense.is_array() || !dense.empty())
        r.refuse("mlp_only_layers", "dense layers among the MoE layers are not modelled, got "
                                      + dense.dump());
    }
  }
  m.topk = r.dimension("num_experts_per_tok", "topk");
}

void refuse_sliding_window(const config_reader& r, const hf_architecture& a) {
  if (!a.window_key)
    return;
  const std::string key = a.window_key;
  if (key == "use_sliding_window") {
    if (r.flag_or("use_sliding_window", false))
      r.refuse(key, "sliding-window attention is not modelled");
    return;
  }
  // Mistral's class defaults to a 4096-token window: only an explicit null
  // says the model attends to the whole sequence.
  const bool given = r.has(a.window_key);
  if (given || (std::string(a.type) == "mistral" && !r.present(a.window_key)))
    r.refuse(key, "sliding-window attention (" + (given ? r.at(a.window_key).dump()
                                                        : std::string("4096"))
                    + " tokens" + (given ? "" : ", the default when the field is absent")
                    + ") is not modelled");
}

} // namespace

bool names_an_hf_config(const std::string& path) {
  return path.ends_with(".json");
}

model_spec model_from_hf_config(const std::string& path, const std::string& name) {
  const auto j = read_json(path);
  const config_reader r(j, path);
  const auto type = r.text("model_type");
  const auto* a = std::find_if(std::begin(architectures), std::end(architectures),
                               [&](const hf_architecture& x) { return type == x.type; });
  if (a == std::end(architectures))
    throw input_error(path + ": model_type '" + printable_excerpt(type, 80)
                      + "' is not one paratune reads (it reads: " + known_types() + ")");
  const auto act = r.has("hidden_act") ? r.text("hidden_act") : std::string("silu");
  if (act != "silu")
    r.refuse("hidden_act", "'" + printable_excerpt(act, 80) + "': a " + type
                             + " MLP is gated, and Megatron-LM's --swiglu gates with SiLU");
  refuse_sliding_window(r, *a);

  model_spec m;
  m.name = name.empty() ? default_name(j, path) : name;
  m.family = type;
  m.layers = r.dimension("num_hidden_layers", "layers");
  m.hidden = r.dimension("hidden_size", "hidden");
  m.heads = r.dimension("num_attention_heads", "heads");
  m.kv_heads = r.dimension_or("num_key_value_heads", "kv_heads", m.heads);
  m.head_dim = r.dimension_or("head_dim", "head_dim", a->head_dim);
  m.ffn = r.dimension("intermediate_size", "ffn");
  m.vocab = r.dimension("vocab_size", "vocab");
  m.max_seq = r.dimension_or("max_position_embeddings", "max_seq", 0);
  m.swiglu = true;
  m.rmsnorm = true;
  m.tied_embeddings = r.flag_or("tie_word_embeddings", false);
  read_experts(r, *a, m);
  m.position = position_embedding::rope;
  const auto theta_range = find_model_dimension("rotary_base")->range;
  m.rotary_base = r.has("rope_theta")
                    ? int(r.integer("rope_theta", std::max<int64_t>(theta_range.min, 1),
                                    theta_range.max))
                    : int(a->rope_theta);
  m.rope_scaling_factor = rope_scaling_factor(r);
  read_biases(r, *a, m);
  m.qk_layernorm = a->qk_norm;
  // As a model file's norm_epsilon: published epsilons lie in 1e-12..1e-3.
  m.norm_epsilon = r.real_or("rms_norm_eps", 1e-12, 1e-1, a->rms_norm_eps);
  check_model(m, path);
  return m;
}

} // namespace paratune
