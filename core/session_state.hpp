#pragma once

#include <string>

namespace paratune {

/// Where a tuning session stands, as stored in its session_status record.
enum class session_state {
  running,   ///< trials remain in the budget
  finished,  ///< the trial budget is spent
  exhausted, ///< nothing new and valid remains to try
  failed,    ///< it could not go on: the reason is stored with it
  cancelled, ///< a user ended it (paratune cancel); its running trials were stopped
};

/// "running", "finished", "exhausted", "failed", "cancelled": the wire and CLI forms.
const char* to_string(session_state s);
bool parse_session_state(const std::string& text, session_state& out);

/// Whether the session has ended.
inline bool is_final(session_state s) {
  return s != session_state::running;
}

} // namespace paratune
