#pragma once

#include "core/session_cache.hpp"
#include "ledger/session_ledger.hpp"

namespace paratune {

/// The ledgers one reader keeps, one per session, so that each read of the
/// pool asks only for what is new (actors/agent.hpp's with_ledger). Shared
/// by the bottleneck analyst's workers.
using ledger_book = session_cache<session_ledger>;

/// How many sessions' ledgers a reader holds before it drops the least
/// recently used (read whole again if its session comes back).
constexpr size_t ledger_book_capacity = 4096;

} // namespace paratune
