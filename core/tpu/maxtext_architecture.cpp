#include "core/tpu/maxtext_architecture.hpp"

#include <array>
#include <charconv>

#include "core/tpu/maxtext_value.hpp"

namespace paratune {

namespace {

// MaxText's LLaMARotaryEmbedding divides low frequencies by 8, fixed
// (layers/embeddings.py:648); MaxText picks it for rope_type llama3.1
// (layers/attentions.py:934).
constexpr double llama31_rope_factor = 8;

// Python's repr of a float as OmegaConf reads it back: "1e-05", "1e-06".
std::string float_text(double v) {
  std::array<char, 32> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return std::string(buf.data(), end);
}

std::string flag(bool b) { return b ? "true" : "false"; }

std::string_view key_of(std::string_view kv) { return kv.substr(0, kv.find('=')); }

std::string_view value_of(std::string_view kv) {
  const auto eq = kv.find('=');
  return eq == std::string_view::npos ? std::string_view() : kv.substr(eq + 1);
}

} // namespace

std::string_view maxtext_decoder_block(const model_spec& m) {
  if (!m.swiglu)
    return "gpt3";
  if (m.is_moe())
    return m.qk_layernorm ? "qwen3_moe" : "mixtral";
  if (m.qk_layernorm)
    return "qwen3";
  return m.has_qkv_bias() ? "qwen2" : "llama2";
}

std::vector<std::string> maxtext_architecture_args(const model_spec& m) {
  std::vector<std::string> out;
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
  out.push_back("decoder_block=" + std::string(maxtext_decoder_block(m)));
  out.push_back(std::string("mlp_activations=") + (m.swiglu ? "[silu,linear]" : "[gelu]"));
  out.push_back("normalization_layer_epsilon=" + float_text(m.norm_epsilon));
  if (m.position == position_embedding::rope) {
    out.push_back("rope_max_timescale=" + std::to_string(m.rotary_base));
    if (m.rope_scaling_factor != 0)
      out.push_back("rope_type=llama3.1");
  } else if (m.position == position_embedding::learned_absolute && m.max_seq > 0) {
    // GPT-3's learned positions exist only with a positive size
    // (base.yml:1010).
    out.push_back("trainable_position_size=" + std::to_string(m.max_seq));
  }
  out.push_back("attention_bias=" + flag(m.has_qkv_bias()));
  out.push_back("use_qk_norm=" + flag(m.qk_layernorm));
  out.push_back("logits_via_embedding=" + flag(m.tied_embeddings));
  out.push_back("normalize_embedding_logits=false");
  out.push_back("enable_dropout=false");
  return out;
}

std::optional<std::string> maxtext_cannot_build(const model_spec& m) {
  if (m.position == position_embedding::rope && m.rope_scaling_factor != 0
      && m.rope_scaling_factor != llama31_rope_factor)
    return "model " + m.name + ": MaxText's rope scaling (rope_type=llama3.1) scales by 8, not "
           + float_text(m.rope_scaling_factor);
  return std::nullopt;
}

const maxtext_model_file* maxtext_file_for(const model_spec& m) {
  const auto* file = maxtext_model_file_of(m.name);
  if (!file)
    return nullptr;
  for (const auto& kv : maxtext_architecture_args(m)) {
    const auto* s = file->find(key_of(kv));
    if (s && !same_maxtext_value(s->value, value_of(kv)))
      return nullptr;
  }
  return file;
}

std::vector<std::string> maxtext_model_args(const model_spec& m) {
  auto args = maxtext_architecture_args(m);
  const auto* file = maxtext_file_for(m);
  if (!file)
    return args;
  std::vector<std::string> out{"model_name=" + std::string(file->name)};
  for (auto& kv : args)
    if (!file->find(key_of(kv)))
      out.push_back(std::move(kv));
  return out;
}

} // namespace paratune
