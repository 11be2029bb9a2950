#include "core/tpu/maxtext_model_table.hpp"

#include <algorithm>
#include <array>

namespace paratune {

namespace {

// Copied key by key from AI-Hypercomputer/maxtext @ maxtext_rules_commit
// (e591f30c), src/maxtext/configs/models/<name>.yml; the number is the
// file's line. A catalog model MaxText ships gets its file here (the
// catalog's own architecture is checked against it by
// tests/maxtext/maxtext_model_config_test.cpp).
constexpr std::array<maxtext_setting, 13> llama2_7b = {{
    {"base_emb_dim", "4096", 17},
    {"base_num_query_heads", "32", 18},
    {"base_num_kv_heads", "32", 19},
    {"base_mlp_dim", "11008", 20},
    {"base_num_decoder_layers", "32", 21},
    {"head_dim", "128", 22},
    {"mlp_activations", "[silu,linear]", 23},
    {"vocab_size", "32000", 24},
    {"enable_dropout", "false", 25},
    {"logits_via_embedding", "false", 26},
    {"normalization_layer_epsilon", "1.0e-5", 27},
    {"decoder_block", "llama2", 28},
    {"logical_axis_rules", "[[norm,fsdp]]", 29},
}};

constexpr std::array<maxtext_setting, 13> llama3_8b = {{
    {"base_emb_dim", "4096", 17},
    {"base_num_query_heads", "32", 18},
    {"base_num_kv_heads", "8", 19},
    {"base_num_decoder_layers", "32", 20},
    {"base_mlp_dim", "14336", 21},
    {"head_dim", "128", 22},
    {"mlp_activations", "[silu,linear]", 23},
    {"vocab_size", "128256", 24},
    {"enable_dropout", "false", 25},
    {"logits_via_embedding", "false", 26},
    {"normalization_layer_epsilon", "1.0e-5", 27},
    {"rope_max_timescale", "500_000", 28},
    {"decoder_block", "llama2", 29},
}};

// Llama 3.1's rope scaling is not in the file: MaxText picks
// LLaMARotaryEmbedding (scale factor 8) for a model_name that starts with
// "llama3.1" (layers/attentions.py:934).
constexpr std::array<maxtext_setting, 13> llama3_1_405b = {{
    {"base_emb_dim", "16384", 17},
    {"base_num_query_heads", "128", 18},
    {"base_num_kv_heads", "8", 19},
    {"base_num_decoder_layers", "126", 20},
    {"base_mlp_dim", "53248", 21},
    {"head_dim", "128", 22},
    {"mlp_activations", "[silu,linear]", 23},
    {"vocab_size", "128256", 24},
    {"enable_dropout", "false", 25},
    {"logits_via_embedding", "false", 26},
    {"normalization_layer_epsilon", "1.0e-5", 27},
    {"rope_max_timescale", "500_000", 28},
    {"decoder_block", "llama2", 29},
}};

// No enable_dropout here: base.yml's `true` (line 935) stays unless the
// command line says otherwise.
constexpr std::array<maxtext_setting, 16> qwen2_5_7b = {{
    {"base_emb_dim", "3584", 18},
    {"base_num_query_heads", "28", 19},
    {"base_num_kv_heads", "4", 20},
    {"base_mlp_dim", "18944", 21},
    {"base_num_decoder_layers", "28", 22},
    {"head_dim", "128", 23},
    {"mlp_activations", "[silu,linear]", 24},
    {"vocab_size", "152064", 25},
    {"decoder_block", "qwen2", 26},
    {"normalization_layer_epsilon", "1e-06", 27},
    {"rope_max_timescale", "1000000.0", 28},
    {"use_qk_norm", "false", 29},
    {"attention_bias", "true", 31},
    {"logits_via_embedding", "false", 32},
    {"normalize_embedding_logits", "false", 33},
    {"tokenizer_type", "huggingface", 34},
}};

constexpr std::array<maxtext_model_file, 4> model_files = {{
    {"llama2-7b", "configs/models/llama2-7b.yml", llama2_7b},
    {"llama3-8b", "configs/models/llama3-8b.yml", llama3_8b},
    {"llama3.1-405b", "configs/models/llama3.1-405b.yml", llama3_1_405b},
    {"qwen2.5-7b", "configs/models/qwen2.5-7b.yml", qwen2_5_7b},
}};

// configs/types.py:216-296, in its order.
constexpr std::array<std::string_view, 80> model_names = {
    "default", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3.1-8b-Instruct",
    "llama3-70b", "llama3.1-70b-Instruct", "llama3.1-8b", "llama3.1-70b", "llama3.1-405b",
    "llama3.3-70b", "mistral-7b", "mixtral-8x7b", "mixtral-8x22b", "deepseek2-16b",
    "deepseek2-236b", "deepseek3-671b", "deepseek3-671b-2dfsdp", "deepseek3-671b-batchsplit",
    "deepseek3-test", "deepseek3-tiny", "deepseek3.2-671b", "deepseek4-tiny", "deepseek4-284b",
    "deepseek-custom", "kimi-k2-1t", "gemma-7b", "gemma-2b", "gemma2-2b", "gemma2-9b",
    "gemma2-27b", "gemma3-4b", "gemma3-12b", "gemma3-27b", "gemma4-26b", "gemma4-31b",
    "gemma4-e2b", "gemma4-e4b", "qwen2.5-1.5b", "qwen2.5-7b", "qwen2.5-14b", "qwen3-0.6b",
    "qwen3-1.7b", "qwen3-1.7b-base", "qwen3-4b", "qwen3-4b-base", "qwen3-4b-thinking-2507",
    "qwen3-8b", "qwen3-8b-base", "qwen3-14b", "qwen3-14b-base", "qwen3-32b", "qwen3-235b-a22b",
    "qwen3-30b-a3b", "qwen3-30b-a3b-base", "qwen3-480b-a35b", "qwen3-vl-2b", "qwen3-vl-4b",
    "qwen3-vl-30b-a3b", "qwen3-next-80b-a3b", "qwen3-omni-30b-a3b", "qwen3-custom-30b-a3b",
    "qwen3.5-35b-a3b", "qwen3.5-397b-a17b", "gpt3-175b", "gpt3-22b", "gpt3-6b", "gpt3-52k",
    "gpt-oss-20b", "gpt-oss-120b", "llama4-17b-16e", "llama4-17b-128e", "olmo3-7b",
    "olmo3-7b-pt", "olmo3-32b", "envy-test", "envy-switch-base", "envy-switch-large",
    "envy-switch-xxl"};

// common/common_types.py:92-118, the enum's values in its order.
constexpr std::array<std::string_view, 24> decoder_blocks = {
    "default", "llama2", "mistral", "mixtral", "deepseek", "gemma", "gemma2", "gemma3",
    "gemma4", "gemma4_small", "qwen2", "qwen3", "qwen3_moe", "qwen3_custom_moe", "qwen3_next",
    "qwen3_5", "gpt3", "gpt_oss", "simple", "simple_mlp", "llama4", "olmo3", "deepseek4", "envy"};

} // namespace

const maxtext_setting* maxtext_model_file::find(std::string_view key) const {
  for (const auto& s : settings)
    if (s.key == key)
      return &s;
  return nullptr;
}

std::span<const maxtext_model_file> maxtext_model_files() { return model_files; }

const maxtext_model_file* maxtext_model_file_of(std::string_view name) {
  const auto it = std::find_if(model_files.begin(), model_files.end(),
                               [&](const maxtext_model_file& f) { return f.name == name; });
  return it == model_files.end() ? nullptr : &*it;
}

std::span<const std::string_view> maxtext_model_names() { return model_names; }

std::span<const std::string_view> maxtext_decoder_blocks() { return decoder_blocks; }

} // namespace paratune
