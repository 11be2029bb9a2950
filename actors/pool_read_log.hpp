#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace paratune {

/// What one reader asked of the pool.
struct pool_reads {
  int whole = 0;        ///< reads of a whole session (from sequence number 0)
  int incremental = 0;  ///< reads of what a session gained after a number
  uint64_t records = 0; ///< records those reads returned
};

/// The pool actor's count of session reads, by reader (the asking actor's
/// name): how the ledger's incremental reads are checked. Safe to read from
/// any thread while the pool actor writes it.
class pool_read_log {
public:
  void note(const std::string& reader, uint64_t after_seq, uint64_t records) {
    std::lock_guard<std::mutex> guard{mutex_};
    auto& r = by_reader_[reader];
    ++(after_seq == 0 ? r.whole : r.incremental);
    r.records += records;
  }
  std::map<std::string, pool_reads> by_reader() const {
    std::lock_guard<std::mutex> guard{mutex_};
    return by_reader_;
  }

private:
  mutable std::mutex mutex_;
  std::map<std::string, pool_reads> by_reader_;
};

} // namespace paratune
