#pragma once

#include <chrono>

namespace paratune {

/// What kind of refusal a pool write or read met, as the storage layer
/// classifies RocksDB's status. The decisions below depend on it only, so
/// they are tested without a disk.
enum class storage_fault {
  none,
  no_space, ///< the disk is full: space may come back, nothing stored is wrong
  io_error, ///< the device refused (EIO, a read-only remount): may come back
  damaged,  ///< a checksum mismatch or other corruption: retrying reads the same bytes
  other,    ///< a refusal of the request itself (bad input, a closed pool)
};

/// What the pool's writer does with a write the pool refused.
enum class write_action {
  wait_and_retry, ///< hold the write (and every later one, keeping the order) and try again
  refuse,         ///< answer the writer with the error: its session fails with the reason
};

/// Who waits for the write.
enum class write_origin {
  running_session, ///< a step of a session under way: losing it would lose the step
  new_session,     ///< a session's first record (submit): its client can submit again
};

/// A full disk or a refusing device is a state of the machine, not of the
/// record: waiting keeps every record and its order, and a running session
/// goes on once space is back. A new session is refused at once instead,
/// so its client hears why rather than waiting on a disk nobody may free.
/// A damaged pool or a bad record does not heal by waiting.
write_action on_write_fault(storage_fault fault, write_origin origin);

/// How long the writer waits before try `attempt` (1, 2, ...): 250 ms,
/// doubling, at most 5 s, so a disk freed by hand is noticed within seconds
/// without a busy loop against a full one.
std::chrono::milliseconds write_retry_delay(int attempt);

/// "no space", "device error", "damaged", ...: the words list shows.
const char* to_string(storage_fault fault);

} // namespace paratune
