#include "core/model_dimensions.hpp"

#include "core/input_error.hpp"

namespace paratune {

// Ranges hold every published model with room to spare (GPT-3 175B has
// hidden 12288, 96 layers; vocabularies reach 256k), and keep the products
// the performance model forms (hidden x ffn x layers, vocab x hidden) exact
// in a double.
const std::vector<model_dimension>& model_dimensions() {
  static const std::vector<model_dimension> all = {
    {"layers", "--num-layers", &model_spec::layers, {1, 16384}},
    {"hidden", "--hidden-size", &model_spec::hidden, {1, int64_t(1) << 20}},
    {"heads", "--num-attention-heads", &model_spec::heads, {1, 16384}},
    {"kv_heads", "--num-query-groups", &model_spec::kv_heads, {1, 16384}},
    {"head_dim", "--kv-channels", &model_spec::head_dim, {0, 65536}},
    {"ffn", "--ffn-hidden-size", &model_spec::ffn, {1, int64_t(1) << 22}},
    {"vocab", "--vocab-size", &model_spec::vocab, {1, int64_t(1) << 24}},
    {"experts", "--num-experts", &model_spec::experts, {0, 65536}},
    {"topk", "--moe-router-topk", &model_spec::topk, {0, 65536}},
    {"moe_ffn", "--moe-ffn-hidden-size", &model_spec::moe_ffn, {0, int64_t(1) << 22}},
    {"max_seq", "--max-position-embeddings", &model_spec::max_seq, {0, int64_t(1) << 24}},
    {"shared_expert_ffn", "--moe-shared-expert-intermediate-size",
     &model_spec::shared_expert_ffn, {0, int64_t(1) << 22}},
    // Published bases run from 10,000 (Llama 2) to a few million (long-context
    // Qwen); Megatron-LM reads it as an integer.
    {"rotary_base", "--rotary-base", &model_spec::rotary_base, {1, int64_t(1) << 30}},
  };
  return all;
}

const model_dimension* find_model_dimension(const std::string& name) {
  for (const auto& d : model_dimensions())
    if (name == d.name)
      return &d;
  return nullptr;
}

namespace {

struct model_checker {
  const model_spec& m;
  const std::string& where;
  dimension_names names;

  std::string name(const char* dimension) const {
    const auto* d = find_model_dimension(dimension);
    return names == dimension_names::megatron ? d->megatron_flag : d->name;
  }
  std::string value(const char* dimension) const {
    return name(dimension) + " " + std::to_string(m.*find_model_dimension(dimension)->field);
  }
  [[noreturn]] void refuse(const char* dimension, const std::string& why) const {
    // Megatron's parser words it "argument --flag: ...".
    const auto prefix = names == dimension_names::megatron ? std::string("argument ") : "";
    throw input_error((where.empty() ? "" : where + ": ") + prefix + value(dimension) + ": " + why);
  }

  void ranges() const {
    for (const auto& d : model_dimensions())
      if (!d.range.contains(m.*d.field))
        refuse(d.name, "outside the allowed range " + d.range.text());
  }
  void attention() const {
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
      refuse("kv_heads", "must divide " + value("heads"));
    if (m.head_dim == 0 && m.hidden % m.heads != 0)
      refuse("hidden", "must be a multiple of " + value("heads") + " unless "
                         + name("head_dim") + " is given");
  }
  void experts() const {
    if (m.experts == 0) {
      if (m.topk != 0)
        refuse("topk", "needs " + name("experts") + " > 0 (a dense model routes no tokens)");
      if (m.shared_expert_ffn != 0)
        refuse("shared_expert_ffn", "needs " + name("experts") + " > 0 (a dense model's MLP is "
                                    + name("ffn") + ")");
      return;
    }
    if (m.topk < 1 || m.topk > m.experts)
      refuse("topk", "must be between 1 and " + value("experts"));
    if (m.moe_ffn < 1)
      refuse("moe_ffn", "a MoE model needs a positive expert hidden size");
  }
};

} // namespace

void check_model(const model_spec& m, const std::string& where, dimension_names names) {
  const model_checker check{m, where, names};
  check.ranges();
  check.attention();
  check.experts();
}

} // namespace paratune
