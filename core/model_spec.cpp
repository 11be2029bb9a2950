#include "core/model_spec.hpp"

namespace paratune {

int64_t model_spec::padded_vocab(int tp) const {
  // Megatron: --make-vocab-size-divisible-by 128, times TP.
  const int64_t multiple = 128LL * (tp > 0 ? tp : 1);
  return (vocab + multiple - 1) / multiple * multiple;
}

void set_style_defaults(model_spec& m) {
  m.position = m.swiglu ? position_embedding::rope : position_embedding::learned_absolute;
  m.bias_linear = !m.swiglu;
}

namespace {

double norm_params(const model_spec& m, double width) {
  return (m.rmsnorm ? 1.0 : 2.0) * width;
}

double attention_params(const model_spec& m) {
  const double q = double(m.head_size()) * m.heads;
  const double kv = double(m.head_size()) * m.kv_heads;
  // Q and output projections are h x q; K and V are h x kv each.
  double p = 2.0 * m.hidden * q + 2.0 * m.hidden * kv;
  if (m.has_qkv_bias())
    p += q + 2 * kv;
  if (m.bias_linear)
    p += m.hidden; // the output projection's
  if (m.qk_layernorm)
    p += 2 * norm_params(m, m.head_size()); // one norm for Q, one for K, shared by the heads
  return p;
}

double mlp_params(const model_spec& m, int ffn) {
  double p = (m.swiglu ? 3.0 : 2.0) * double(m.hidden) * ffn;
  if (m.bias_linear)
    p += (m.swiglu ? 2.0 : 1.0) * ffn + m.hidden; // fc1 (both halves when gated) and fc2
  return p;
}

double layer_params(const model_spec& m, int experts_counted) {
  double p = attention_params(m) + 2 * norm_params(m, m.hidden);
  if (m.is_moe())
    p += experts_counted * mlp_params(m, m.moe_ffn)
         + (m.shared_expert_ffn > 0 ? mlp_params(m, m.shared_expert_ffn) : 0)
         + double(m.hidden) * m.experts; // router
  else
    p += mlp_params(m, m.ffn);
  return p;
}

double embedding_params(const model_spec& m) {
  double p = double(m.vocab) * m.hidden * (m.tied_embeddings ? 1 : 2);
  // A learned table has a row per position; its length is the model's
  // context where known.
  if (m.position == position_embedding::learned_absolute)
    p += double(m.max_seq) * m.hidden;
  return p;
}

} // namespace

double model_spec::parameters() const {
  return layers * layer_params(*this, experts) + embedding_params(*this)
         + norm_params(*this, hidden);
}

double model_spec::active_parameters() const {
  return layers * layer_params(*this, is_moe() ? topk : 0)
         + embedding_params(*this) + norm_params(*this, hidden);
}

} // namespace paratune
