#pragma once

#include <string>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "storage/message_pool.hpp"
#include "storage/rocks_log.hpp"

namespace paratune {

/// What `paratune pool check` finds in a pool, read without writing
/// anything to its directory.
struct pool_checkup {
  /// Why the pool does not open as the daemon opens it ("" when it does).
  std::string open_refusal;
  /// The write-ahead logs' bytes RocksDB could not read.
  std::vector<dropped_log_bytes> damaged_logs;
  /// The first damaged block of a table file ("" when all verify).
  std::string table_damage;
  /// Every sequence number read on its own.
  message_pool::record_survey records;
  /// Sessions whose history does not read, with why.
  std::vector<std::pair<std::string, std::string>> unreadable_sessions;
  /// Why the sessions' index does not read ("" when it does).
  std::string index_damage;
  size_t sessions = 0; ///< sessions the index lists

  bool damaged() const;
};

/// Reads the pool at `dir` twice, read-only: as the daemon opens it, and
/// past its damaged log records to count what they held.
caf::expected<pool_checkup> check_pool(const std::string& dir);

/// What `paratune pool repair` did.
struct pool_repair {
  pool_checkup before;
  std::string evidence_dir;            ///< where the damaged files were copied; "" if none was
  uint64_t kept = 0;                   ///< records copied into the repaired pool
  std::vector<message_pool::seq_range> lost; ///< numbers that did not come through
};

/// Copies every file of the pool into `dir`/damaged-`stamp`/ first, then
/// rebuilds the pool from the records that read (their own numbers and
/// indexes) and puts it in place of the damaged one. A pool with no damage
/// is left as it is.
caf::expected<pool_repair> repair_pool(const std::string& dir, const std::string& stamp);

} // namespace paratune
