#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
class Status;
} // namespace rocksdb

namespace paratune {

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
                                                       const std::string& what);
  ~rocks_db();
  rocks_db(const rocks_db&) = delete;
  rocks_db& operator=(const rocks_db&) = delete;

  rocksdb::DB* db() const { return db_; }
  /// The handle of the column family at `index` in the open() list.
  rocksdb::ColumnFamilyHandle* column(size_t index) const { return handles_[index]; }

private:
  rocks_db() = default;
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

/// A RocksDB status as a paratune storage_failure: "what: status".
caf::error storage_error(const std::string& what, const rocksdb::Status& s);

} // namespace paratune
