#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "messages/wire_types.hpp"

namespace paratune {

class message_pool;

/// Reads sessions from the pool for the dashboard, keeping what it has
/// read: a page polled every 2 s reads only the records appended since its
/// last poll (message_pool::session_history after a sequence number), not
/// the whole session again. It keeps only the records a page shows
/// (session_opened, proposal, trial_started, trial_interrupted,
/// trial_result, failure_diagnosis, session_status, a TPU session's
/// opening, run rows and end, and of the metric series only each
/// trial's TFLOP/s per GPU from its log, for the live line), not the
/// per-GPU series. Safe to call from several threads.
class session_reader {
public:
  explicit session_reader(std::shared_ptr<const message_pool> pool);

  /// The session ids the pool holds, in byte order.
  caf::expected<std::vector<std::string>> sessions() const;

  /// The session's records a page shows, in append order, up to the
  /// newest record in the pool; empty for a session the pool lacks.
  caf::expected<std::vector<wire::envelope>> history(const std::string& session);

private:
  struct cached {
    uint64_t last_seq = 0;               ///< the newest record read
    std::vector<wire::envelope> records; ///< those worth keeping
  };

  std::shared_ptr<const message_pool> pool_;
  std::mutex mutex_;
  std::map<std::string, cached> sessions_;
};

} // namespace paratune
