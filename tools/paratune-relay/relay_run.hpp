#pragma once

#include <optional>

#include "adapters/relay/relay_auth.hpp"
#include "tools/paratune-relay/relay_options.hpp"

namespace paratune::relay {

/// Relays until the command ends (or, following a file without one, until
/// SIGTERM or SIGINT), publishes the end, serves re-sends for
/// --linger-ms, and returns the command's exit status; 1 when the bus, the
/// log file or the fetch socket cannot be set up (the reason on stderr).
/// With `key` every message carries its signature (relay_auth.hpp).
int run_relay(const relay_options& o, const std::optional<relay_key>& key);

} // namespace paratune::relay
