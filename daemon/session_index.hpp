#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "core/trial_outcome.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/control_wire.hpp"

namespace paratune {

class message_pool;

/// Trials of all sessions by where they stand, for the daemon's metrics.
struct trial_counts {
  int queued = 0;  ///< proposed, not started yet
  int running = 0; ///< started, no result yet
  std::map<trial_status, int> ended;
};

/// The sessions a pool holds, as `list` and `status` show them, kept up to
/// date by reading only what the pool gained since the last refresh (one
/// bounded scan per session, so a refresh costs what is new). Only
/// tuning sessions (those that begin with session_opened or tpu_session_opened) are listed.
/// Thread-safe.
class session_index {
public:
  /// Reads the records appended since the last refresh. A session whose
  /// records do not read (a damaged block) is failed on its own, with the
  /// reason; only a pool whose session list does not read is an error.
  caf::expected<void> refresh(const message_pool& pool);

  /// Every session, newest first.
  std::vector<control::session_row> rows() const;
  std::optional<control::session_row> row(const std::string& id) const;
  /// Sessions whose last record does not end them: what a daemon that
  /// starts resumes.
  std::vector<std::string> unfinished() const;
  trial_counts trials() const;

private:
  struct entry {
    session_ledger ledger;  ///< the session's records, folded as they come
    std::string unreadable; ///< why its records do not read ("" when they do)
    /// Listed: a tuning session (its session_opened was seen), or one
    /// whose records do not read.
    bool listed() const { return ledger.job() || ledger.tpu_job() || !unreadable.empty(); }
  };
  /// The row as list shows it: paused while the pool holds one of its writes.
  control::session_row shown(const std::string& id, const entry& e) const;

  mutable std::mutex mutex_;
  std::map<std::string, entry> entries_;
  std::map<std::string, std::string> stalls_; ///< session -> the refused write, in words
};

} // namespace paratune
