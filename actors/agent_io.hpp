#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/interfaces.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// What every agent talks through: the pool and the bus.
struct agent_deps {
  pool_actor pool;
  egress_actor egress;
};

/// Writes `e` to the pool, then publishes it (with its sequence number) on
/// `topic`: the pool first, because the bus may drop what the pool keeps.
/// `then` runs with the sequence number once stored.
void store_and_publish(caf::event_based_actor* self, const agent_deps& deps,
                       const std::string& topic, wire::envelope e,
                       std::function<void(uint64_t)> then = {});

/// Publishes without storing (telemetry: high volume, summarized later).
void publish_only(caf::event_based_actor* self, const agent_deps& deps, const std::string& topic,
                  const wire::envelope& e);

/// Decodes a bus payload. A payload that does not decode is logged and
/// dropped (nullopt): bad input never takes an agent down.
std::optional<wire::envelope> decode_bus(const std::string& agent, const std::string& topic,
                                         const std::string& payload);

/// Reads a session's records from the pool, decoded, then calls `then`.
/// Undecodable records are logged and skipped.
void with_history(caf::event_based_actor* self, const agent_deps& deps,
                  const std::string& session,
                  std::function<void(std::vector<wire::envelope>)> then);

/// The first record of `type` in a history, or nullptr.
const wire::envelope* find_first(const std::vector<wire::envelope>& history, const char* type);

} // namespace paratune
