#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "messages/wire_types.hpp"
#include "storage/message_pool.hpp"

namespace paratune::cli {

/// Commands that read sessions back (`export`, `report`) open the pool
/// this way: never creating one, refusing bad input before any I/O.

/// Throws input_error (exit 2) unless `id` is a plain session name.
void check_session_id(const std::string& id);

/// How a command uses the pool.
enum class pool_access {
  read,  ///< writes nothing: works on a full disk and beside the daemon
  write, ///< `ask` stores its dialogue
};

/// The existing pool at `db`. Throws input_error (exit 2) when there is
/// none; prints why and returns null (exit 1) when it does not open.
std::unique_ptr<message_pool> open_existing_pool(const std::string& db, pool_access access);

/// The records of `session`; prints why and returns none (exit 1) when
/// they do not read.
std::optional<std::vector<wire::envelope>> read_session(const message_pool& pool,
                                                        const std::string& session);

} // namespace paratune::cli
