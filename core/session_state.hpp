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
  /// No candidate left was likely to beat the best run by the job's margin
  /// (`stop:`); the reason is stored with it, its running trials were ended.
  converged,
  /// Waiting for the pool: a write it needs was refused (a full disk) and is
  /// retried until it succeeds; then it is running again. Never stored: the
  /// daemon's list shows it from the pool's stalled writes.
  paused,
};

/// "running", "finished", "exhausted", "failed", "cancelled", "converged", "paused": the wire
/// and CLI forms.
const char* to_string(session_state s);
bool parse_session_state(const std::string& text, session_state& out);

/// Whether the session has ended.
inline bool is_final(session_state s) {
  return s != session_state::running && s != session_state::paused;
}

} // namespace paratune
