#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "core/storage_fault.hpp"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
class Status;
} // namespace rocksdb

namespace paratune {

class rocks_log;

/// How a database is opened.
struct rocks_open_mode {
  /// RocksDB's read-only open: nothing in the directory is written, so it
  /// works on a full disk and beside a writer (`report`, `pool check`).
  bool read_only = false;
  /// Read a damaged write-ahead log past its bad records instead of
  /// refusing to open (`pool check` to count the loss, `pool repair`). A
  /// plain open refuses a log with a bad record anywhere but its end.
  bool skip_damaged_log = false;
};

/// One RocksDB database with a fixed list of column families, opened and
/// closed in one place (kvrocks' single open helper). Column family handles
/// are positional when a database is reopened, so each store names its
/// families in one array that never changes order and indexes them with an
/// enum in the same order.
class rocks_db {
public:
  /// Opens or creates `dir` with `columns` ("default" first). `what` names
  /// the store in errors: "cannot open message pool at DIR: ...".
  static caf::expected<std::unique_ptr<rocks_db>> open(const std::string& dir,
                                                       const std::vector<const char*>& columns,
                                                       const std::string& what,
                                                       rocks_open_mode mode = {});
  ~rocks_db();
  rocks_db(const rocks_db&) = delete;
  rocks_db& operator=(const rocks_db&) = delete;

  rocksdb::DB* db() const { return db_; }
  /// The handle of the column family at `index` in the open() list.
  rocksdb::ColumnFamilyHandle* column(size_t index) const { return handles_[index]; }

  /// RocksDB's warnings and errors since the open, oldest first.
  std::vector<std::string> log_lines() const;

  /// Lifts RocksDB's stop after a failed write (its background error) once
  /// the cause is gone; RocksDB does so by itself for a full disk that got
  /// space back. An error while the cause remains or RocksDB still recovers.
  caf::expected<void> resume();

private:
  rocks_db() = default;
  std::shared_ptr<rocks_log> log_;
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

/// A RocksDB status as a paratune error, "what: status", whose code says
/// the fault: storage_no_space, storage_io_error, storage_damaged, or
/// storage_failure for any other refusal.
caf::error storage_error(const std::string& what, const rocksdb::Status& s);

/// The storage fault an error of storage_error() stands for.
storage_fault fault_of(const caf::error& err);

} // namespace paratune
