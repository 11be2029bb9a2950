#include "core/start_policy.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(start_policy p) {
  switch (p) {
    case start_policy::initial: return "initial";
    case start_policy::predicted_best: return "predicted_best";
  }
  return "initial";
}

bool parse_start_policy(const std::string& text, start_policy& out) {
  return parse_word_of(text, {start_policy::initial, start_policy::predicted_best}, out);
}

} // namespace paratune
