#pragma once

#include <string>

#include "core/model_spec.hpp"

namespace paratune {

/// A model from a Hugging Face `config.json`, as a model file would give it,
/// for the architectures paratune can render for Megatron-LM: `model_type`
/// llama, mistral, mixtral, qwen2, qwen2_moe, qwen3 and qwen3_moe.
///
/// The sizes come from hidden_size, intermediate_size, num_attention_heads,
/// num_key_value_heads, head_dim, num_hidden_layers, vocab_size and
/// max_position_embeddings; the experts from num_local_experts (Mixtral) or
/// num_experts, num_experts_per_tok, moe_intermediate_size and
/// shared_expert_intermediate_size (Qwen-MoE); the architecture from
/// rope_theta, rope_scaling (Llama 3.1's `llama3` scheme only, which is what
/// Megatron-LM's --use-rope-scaling applies), rms_norm_eps,
/// tie_word_embeddings and the biases (Qwen2's Q/K/V bias; attention_bias
/// with mlp_bias). A field a config leaves out takes the default of the
/// architecture's configuration class in transformers.
///
/// What Megatron-LM cannot build as the config says (an activation other
/// than SiLU, sliding-window attention, rope scaling other than Llama 3.1's,
/// a bias on the attention projections alone, MoE layers mixed with dense
/// ones) is refused rather than approximated. Throws input_error naming the
/// file and the field; an unknown `model_type` names the file and the type.
/// The model's name is `name` when not empty, else the config's
/// `_name_or_path`, else the folder holding a `config.json` (or the file's
/// stem).
model_spec model_from_hf_config(const std::string& path, const std::string& name = {});

/// Whether `path` names a Hugging Face config: it ends in `.json`.
bool names_an_hf_config(const std::string& path);

} // namespace paratune
