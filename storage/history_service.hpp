#pragma once

#include "messages/control_wire.hpp"

namespace paratune {

class message_pool;

/// Answers one control `history` request from the pool: the session's
/// records above `after_seq`, in order, at most `limit` of them (0 or more
/// than control::max_history_records means that cap) and no more bytes
/// than a reply may carry, with `more` when the page was cut and `last_seq`
/// the sequence number the next page starts after (`after_seq` itself when
/// nothing is there yet). Pure over the pool: the daemon's control server
/// and the telemetry bench's ROUTER loop both call it. A request that is
/// not `history`, of another protocol version or without a session, and a
/// pool that cannot be read, get a refusal that says why.
control::reply serve_history(const message_pool& pool, const control::request& request);

} // namespace paratune
