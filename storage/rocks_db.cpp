#include "storage/rocks_db.hpp"

#include <rocksdb/db.h>

#include "messages/ec.hpp"
#include "storage/rocks_log.hpp"

namespace paratune {

caf::error storage_error(const std::string& what, const rocksdb::Status& s) {
  auto code = ec::storage_failure;
  if (s.IsNoSpace())
    code = ec::storage_no_space;
  else if (s.IsCorruption())
    code = ec::storage_damaged;
  else if (s.IsIOError())
    code = ec::storage_io_error;
  return caf::make_error(code, what + ": " + s.ToString());
}

storage_fault fault_of(const caf::error& err) {
  if (!err)
    return storage_fault::none;
  if (err.category() != caf::atom("paratune"))
    return storage_fault::other;
  switch (static_cast<ec>(err.code())) {
    case ec::storage_no_space: return storage_fault::no_space;
    case ec::storage_io_error: return storage_fault::io_error;
    case ec::storage_damaged: return storage_fault::damaged;
    default: return storage_fault::other;
  }
}

caf::expected<std::unique_ptr<rocks_db>> rocks_db::open(const std::string& dir,
                                                        const std::vector<const char*>& columns,
                                                        const std::string& what,
                                                        rocks_open_mode mode) {
  std::unique_ptr<rocks_db> out{new rocks_db};
  out->log_ = std::make_shared<rocks_log>();
  rocksdb::Options options;
  options.create_if_missing = !mode.read_only;
  options.create_missing_column_families = !mode.read_only;
  options.info_log = out->log_; // no LOG file on the pool's disk: see rocks_log
  // A bad record anywhere in a write-ahead log refuses the open, where
  // RocksDB's default (point in time) would drop it and every record after
  // it, then delete the log: a silent, permanent loss. Only an incomplete
  // last record is passed over: a write cut off by a crash or a full disk,
  // which was never reported stored.
  options.wal_recovery_mode = mode.skip_damaged_log
                                ? rocksdb::WALRecoveryMode::kSkipAnyCorruptedRecords
                                : rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  options.paranoid_checks = true;
  rocksdb::ColumnFamilyOptions family;
  // RocksDB resumes by itself after a full disk once one memtable's worth is
  // free; with the default 64 MiB a nearly full disk would keep every
  // session paused long after space came back. The pool's records are small.
  family.write_buffer_size = size_t{4} << 20;
  options.write_buffer_size = family.write_buffer_size;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const char* name : columns)
    descriptors.emplace_back(name, family);
  auto s = mode.read_only
             ? rocksdb::DB::OpenForReadOnly(options, dir, descriptors, &out->handles_, &out->db_)
             : rocksdb::DB::Open(options, dir, descriptors, &out->handles_, &out->db_);
  if (!s.ok()) {
    // The bytes RocksDB dropped name the damaged log: say so in the refusal.
    std::string dropped;
    for (const auto& d : dropped_log_bytes_of(out->log_->lines()))
      dropped += (dropped.empty() ? "" : "; ") + d.file + ": " + std::to_string(d.bytes)
                 + " bytes unreadable (" + d.reason + ")";
    auto refusal = storage_error("cannot open " + what + " at " + dir
                                   + (dropped.empty() ? "" : " [" + dropped + "]"),
                                 s);
    // An open is not retried: another process's lock (an I/O error to
    // RocksDB) is no device fault, so only space and damage keep their codes.
    if (fault_of(refusal) == storage_fault::io_error)
      return caf::make_error(ec::storage_failure, "cannot open " + what + " at " + dir + ": "
                                                    + s.ToString());
    return refusal;
  }
  return out;
}

std::vector<std::string> rocks_db::log_lines() const {
  return log_->lines();
}

caf::expected<void> rocks_db::resume() {
  auto s = db_->Resume();
  if (!s.ok())
    return storage_error("cannot resume writing", s);
  return {};
}

rocks_db::~rocks_db() {
  if (!db_)
    return;
  for (auto* h : handles_)
    db_->DestroyColumnFamilyHandle(h);
  db_->Close();
  delete db_;
}

} // namespace paratune
