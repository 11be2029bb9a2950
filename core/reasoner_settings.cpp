#include "core/reasoner_settings.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(reasoner_mode m) {
  switch (m) {
    case reasoner_mode::builtin: return "builtin";
    case reasoner_mode::llm: return "llm";
    case reasoner_mode::hybrid: return "hybrid";
  }
  return "builtin";
}

bool parse_reasoner_mode(const std::string& text, reasoner_mode& out) {
  return parse_word_of(text, {reasoner_mode::builtin, reasoner_mode::llm, reasoner_mode::hybrid},
                       out);
}

} // namespace paratune
