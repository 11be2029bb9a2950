#include "core/session_stop_policy.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(session_stop_mode m) {
  switch (m) {
    case session_stop_mode::budget: return "budget";
    case session_stop_mode::converged: return "converged";
  }
  return "budget";
}

bool parse_session_stop_mode(const std::string& text, session_stop_mode& out) {
  return parse_word_of(text, {session_stop_mode::budget, session_stop_mode::converged}, out);
}

} // namespace paratune
