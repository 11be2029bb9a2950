#include "tools/paratune/pool_reader.hpp"

#include <filesystem>
#include <iostream>

#include "core/input_error.hpp"
#include "core/text.hpp"
#include "messages/ec.hpp"

namespace paratune::cli {

namespace {
constexpr size_t session_id_size = 128;
}

void check_session_id(const std::string& id) {
  if (!is_plain_name(id, session_id_size))
    throw input_error("session id '" + id + "': expected a session id such as "
                      "s20261125T101500-ab12 (letters, digits, '.', '_', '-')");
}

std::unique_ptr<message_pool> open_existing_pool(const std::string& db, pool_access access) {
  std::error_code exists_error;
  if (!std::filesystem::is_directory(db, exists_error)) // opening would create an empty pool
    throw input_error("no pool at " + db + " (--db: the directory `tune --db` wrote)");
  // A reader opens read-only: it changes nothing, so it works on a full disk
  // and beside the daemon that writes the pool.
  message_pool::options opts;
  opts.read_only = access == pool_access::read;
  auto pool = message_pool::open(db, opts);
  if (!pool) {
    std::cerr << "error: cannot open the pool " << db << ": " << describe(pool.error()) << "\n";
    return nullptr;
  }
  return std::move(*pool);
}

std::optional<std::vector<wire::envelope>> read_session(const message_pool& pool,
                                                        const std::string& session) {
  auto history = pool.session_history(session);
  if (!history) {
    std::cerr << "error: cannot read session " << session << ": " << describe(history.error())
              << "\n";
    return std::nullopt;
  }
  return std::move(*history);
}

} // namespace paratune::cli
