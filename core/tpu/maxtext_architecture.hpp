#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model_spec.hpp"
#include "core/tpu/maxtext_model_table.hpp"

namespace paratune {

/// MaxText's decoder block for `m`, by the structure it has: an ungated MLP
/// is GPT-3's block; an MoE model with Q/K normalization Qwen3-MoE's, other
/// MoE models Mixtral's; a dense model with Q/K normalization Qwen3's, with
/// a Q/K/V bias Qwen2's (Llama's block has no such bias, models/llama2.py),
/// any other Llama 2's.
std::string_view maxtext_decoder_block(const model_spec& m);

/// Every key that makes MaxText build `m` over base.yml, as key=value
/// overrides: the sizes (base_emb_dim, base_num_query_heads,
/// base_num_kv_heads, head_dim, base_mlp_dim, base_num_decoder_layers,
/// vocab_size; num_experts, num_experts_per_tok and base_moe_mlp_dim for an
/// MoE model), decoder_block, mlp_activations, normalization_layer_epsilon,
/// the rope's max timescale (and rope_type=llama3.1 for Llama 3.1's
/// scaling) or GPT-3's trainable positions, attention_bias, use_qk_norm,
/// logits_via_embedding, normalize_embedding_logits=false (Hugging Face's
/// tied models do not normalize the logits), and enable_dropout=false: a
/// throughput run trains without dropout, as MaxText's model files do.
std::vector<std::string> maxtext_architecture_args(const model_spec& m);

/// Why MaxText has no form for `m`, or nothing: a rope scaling other than
/// Llama 3.1's (MaxText's scales by 8 only, layers/embeddings.py:648).
std::optional<std::string> maxtext_cannot_build(const model_spec& m);

/// The model file `model_name` builds `m` from: the table's file of `m`'s
/// name when every key the file sets agrees with maxtext_architecture_args;
/// nullptr otherwise (no file, or a model of that name with another shape).
const maxtext_model_file* maxtext_file_for(const model_spec& m);

/// What MaxText is told to build `m`: with a file (maxtext_file_for),
/// `model_name=<name>` and each architecture key the file leaves to
/// base.yml (enable_dropout=false among them where the file has no
/// enable_dropout); without, every architecture key.
std::vector<std::string> maxtext_model_args(const model_spec& m);

} // namespace paratune
