#pragma once

#include <string>

namespace paratune {

/// How a model encodes token positions, as Megatron-LM's
/// --position-embedding-type names it.
enum class position_embedding {
  /// A trained table of max_position_embeddings x hidden added to the token
  /// embedding (GPT-2, GPT-3). Megatron-LM's default.
  learned_absolute,
  /// Rotary embedding applied to Q and K in every layer (Llama, Qwen): no
  /// parameters, but new Q and K tensors per layer.
  rope,
  /// No position signal at all.
  none,
};

/// "learned_absolute", "rope", "none": Megatron-LM's, model files' and the
/// wire's word.
const char* to_string(position_embedding p);

/// Reads a model file's word. Megatron-LM's other choices, "mrope" (read as
/// rope) and "relative" (read as none), are taken when `megatron_variants`
/// is set (a Megatron command line): they cost what those do in the models.
bool parse_position_embedding(const std::string& text, position_embedding& out,
                              bool megatron_variants = false);

} // namespace paratune
