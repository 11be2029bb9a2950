#pragma once

#include <cstdint>
#include <string>

#include "core/position_embedding.hpp"

namespace paratune {

/// The architecture of a transformer language model, as far as parallel
/// configuration and performance depend on it. Dimensions follow the models'
/// published configs (Hugging Face config.json / Megatron arguments).
struct model_spec {
  std::string name;          ///< catalog name, e.g. "llama3-8b"
  std::string family;        ///< llama2, llama3, qwen2.5, qwen3-moe, gpt3
  std::string size;          ///< size label as users write it: "8B", "0.5B", "A0.6B"
  int layers = 0;            ///< number of transformer layers
  int hidden = 0;            ///< hidden size h
  int heads = 0;             ///< attention heads a
  int kv_heads = 0;          ///< query groups g (== heads for MHA)
  int head_dim = 0;          ///< kv_channels; 0 means hidden / heads
  int ffn = 0;               ///< MLP hidden size (dense layers)
  int vocab = 0;             ///< vocabulary size (before padding)
  bool swiglu = false;       ///< gated MLP with three matrices
  bool tied_embeddings = false;
  bool rmsnorm = true;       ///< RMSNorm (1 param/h) or LayerNorm (2 params/h)
  int experts = 0;           ///< routed experts per MoE layer, 0 for dense
  int topk = 0;              ///< experts activated per token
  int moe_ffn = 0;           ///< hidden size of one routed expert
  int max_seq = 0;           ///< longest sequence the model was trained for, 0 = unknown
  int shared_expert_ffn = 0; ///< hidden size of the shared expert every token passes, 0 = none
  // What else changes the built model. Defaults are Megatron-LM's, so that a
  // command line without the flag means the default field.
  position_embedding position = position_embedding::learned_absolute;
  int rotary_base = 10000;   ///< rope's theta (--rotary-base)
  /// Llama 3.1's rope frequency scaling (--use-rope-scaling
  /// --rope-scaling-factor); 0 when the model has none.
  double rope_scaling_factor = 0;
  bool bias_linear = true;   ///< every linear layer has a bias (add_bias_linear)
  bool qkv_bias = false;     ///< the QKV projection has one even without (--add-qkv-bias)
  bool qk_layernorm = false; ///< Q and K are normalized per head (--qk-layernorm)
  double norm_epsilon = 1e-5;

  /// kv_channels, the per-head dimension.
  int head_size() const { return head_dim > 0 ? head_dim : hidden / heads; }
  bool is_moe() const { return experts > 0; }
  /// The QKV projection carries a bias (Megatron: add_bias_linear or add_qkv_bias).
  bool has_qkv_bias() const { return bias_linear || qkv_bias; }
  /// Vocabulary padded as Megatron pads it (multiple of 128 * tp).
  int64_t padded_vocab(int tp) const;
  /// Total parameter count (all experts).
  double parameters() const;
  /// Parameters touched per token (top-k experts only).
  double active_parameters() const;
};

/// The position embedding and biases of a model file or an inline model
/// that names neither: a gated (SwiGLU) model is Llama-style, rope and no
/// biases; an ungated one GPT-style, learned positions and biases. paratune's
/// performance model assumed exactly that before these fields existed, so
/// older files and stored sessions keep their predictions.
void set_style_defaults(model_spec& m);

} // namespace paratune
