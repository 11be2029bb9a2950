#include "core/session_state.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(session_state s) {
  switch (s) {
    case session_state::running: return "running";
    case session_state::finished: return "finished";
    case session_state::exhausted: return "exhausted";
    case session_state::failed: return "failed";
    case session_state::cancelled: return "cancelled";
    case session_state::converged: return "converged";
    case session_state::paused: return "paused";
  }
  return "running";
}

bool parse_session_state(const std::string& text, session_state& out) {
  return parse_word_of(text,
                       {session_state::running, session_state::finished,
                        session_state::exhausted, session_state::failed,
                        session_state::cancelled, session_state::converged,
                        session_state::paused},
                       out);
}

} // namespace paratune
