#include "core/model_spec.hpp"

namespace paratune {

int64_t model_spec::padded_vocab(int tp) const {
  // Megatron: --make-vocab-size-divisible-by 128, times TP.
  const int64_t multiple = 128LL * (tp > 0 ? tp : 1);
  return (vocab + multiple - 1) / multiple * multiple;
}

namespace {

double attention_params(const model_spec& m) {
  const double q = double(m.head_size()) * m.heads;
  const double kv = double(m.head_size()) * m.kv_heads;
  // Q and output projections are h x q; K and V are h x kv each.
  return 2.0 * m.hidden * q + 2.0 * m.hidden * kv;
}

double mlp_params(int hidden, int ffn, bool swiglu) {
  return (swiglu ? 3.0 : 2.0) * double(hidden) * ffn;
}

double norm_params(const model_spec& m) {
  return (m.rmsnorm ? 1.0 : 2.0) * m.hidden;
}

double layer_params(const model_spec& m, int experts_counted) {
  double p = attention_params(m) + 2 * norm_params(m);
  if (m.is_moe())
    p += experts_counted * mlp_params(m.hidden, m.moe_ffn, m.swiglu)
         + double(m.hidden) * m.experts; // router
  else
    p += mlp_params(m.hidden, m.ffn, m.swiglu);
  return p;
}

double embedding_params(const model_spec& m) {
  return double(m.vocab) * m.hidden * (m.tied_embeddings ? 1 : 2);
}

} // namespace

double model_spec::parameters() const {
  return layers * layer_params(*this, experts) + embedding_params(*this)
         + norm_params(*this);
}

double model_spec::active_parameters() const {
  return layers * layer_params(*this, is_moe() ? topk : 0)
         + embedding_params(*this) + norm_params(*this);
}

} // namespace paratune
