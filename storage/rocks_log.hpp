#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <rocksdb/env.h>

namespace paratune {

/// RocksDB's info log, kept in memory instead of the LOG file in the
/// database's directory. That file is on the pool's disk: when the disk is
/// full RocksDB's own write of an error line to it fails, and its next
/// write trips an assertion (`sync_without_flush_called_`) that aborts the
/// process. A LOG file also made read-only opens write to the pool's disk.
/// Warnings and errors are kept (the latest few), so a refused open can say
/// what RocksDB saw, such as the bytes it dropped from a damaged log.
class rocks_log : public rocksdb::Logger {
public:
  rocks_log();
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;

  /// The lines kept, oldest first.
  std::vector<std::string> lines() const;

private:
  static constexpr size_t kept_lines = 64;
  mutable std::mutex mutex_;
  std::deque<std::string> lines_;
};

/// One "FILE: dropping N bytes; REASON" line RocksDB writes while it reads
/// a damaged write-ahead log.
struct dropped_log_bytes {
  std::string file;   ///< the log's file name, without its directory
  uint64_t bytes = 0;
  std::string reason; ///< "Corruption: checksum mismatch"
};
/// The line as a dropped_log_bytes, or none when it is another line.
std::optional<dropped_log_bytes> parse_dropped_log_bytes(const std::string& line);

/// The dropped bytes of `lines`, one entry per log file in the order first
/// seen: bytes summed, distinct reasons joined with "; ".
std::vector<dropped_log_bytes> dropped_log_bytes_of(const std::vector<std::string>& lines);

} // namespace paratune
