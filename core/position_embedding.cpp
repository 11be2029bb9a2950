#include "core/position_embedding.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(position_embedding p) {
  switch (p) {
    case position_embedding::learned_absolute: return "learned_absolute";
    case position_embedding::rope: return "rope";
    case position_embedding::none: return "none";
  }
  return "learned_absolute";
}

bool parse_position_embedding(const std::string& text, position_embedding& out,
                              bool megatron_variants) {
  if (parse_word_of(text, {position_embedding::learned_absolute, position_embedding::rope,
                           position_embedding::none},
                    out))
    return true;
  if (!megatron_variants)
    return false;
  // mrope (multimodal sections) rotates Q and K as rope does; relative
  // adds a small per-head bias and no per-token tensor.
  if (text == "mrope") {
    out = position_embedding::rope;
    return true;
  }
  if (text == "relative") {
    out = position_embedding::none;
    return true;
  }
  return false;
}

} // namespace paratune
