#include "storage/rocks_db.hpp"

#include <rocksdb/db.h>

#include "messages/ec.hpp"

namespace paratune {

caf::error storage_error(const std::string& what, const rocksdb::Status& s) {
  return caf::make_error(ec::storage_failure, what + ": " + s.ToString());
}

caf::expected<std::unique_ptr<rocks_db>> rocks_db::open(const std::string& dir,
                                                        const std::vector<const char*>& columns,
                                                        const std::string& what) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const char* name : columns)
    descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions{});
  std::unique_ptr<rocks_db> out{new rocks_db};
  auto s = rocksdb::DB::Open(options, dir, descriptors, &out->handles_, &out->db_);
  if (!s.ok())
    return storage_error("cannot open " + what + " at " + dir, s);
  return out;
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
