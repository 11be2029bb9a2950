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

/// The existing pool at `db`. Throws input_error (exit 2) when there is
/// none; prints why and returns null (exit 1) when it does not open.
std::unique_ptr<message_pool> open_existing_pool(const std::string& db);

/// The records of `session`; prints why and returns none (exit 1) when
/// they do not read.
std::optional<std::vector<wire::envelope>> read_session(const message_pool& pool,
                                                        const std::string& session);

} // namespace paratune::cli
