#pragma once

#include <cstdint>
#include <string>

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

  /// kv_channels, the per-head dimension.
  int head_size() const { return head_dim > 0 ? head_dim : hidden / heads; }
  bool is_moe() const { return experts > 0; }
  /// Vocabulary padded as Megatron pads it (multiple of 128 * tp).
  int64_t padded_vocab(int tp) const;
  /// Total parameter count (all experts).
  double parameters() const;
  /// Parameters touched per token (top-k experts only).
  double active_parameters() const;
};

} // namespace paratune
