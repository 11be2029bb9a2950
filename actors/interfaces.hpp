#pragma once

// Typed interfaces of the infrastructure actors. The agents' interfaces
// are in actors/agent_interfaces.hpp.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/type_ids.hpp"

namespace paratune {

/// Owns the Global Message Pool. The single writer: sequence numbers are
/// allocated here. Envelopes travel between actors as they are; only the
/// pool (to store) and the egress actor (to publish) encode them.
using pool_actor = caf::typed_actor<
  // Stores an envelope; replies with its sequence number.
  caf::replies_to<append_atom, wire::envelope>::with<uint64_t>,
  // The envelopes of a session with a sequence number above the given one
  // (0: all of them), in order.
  caf::replies_to<history_atom, std::string, uint64_t>::with<std::vector<wire::envelope>>,
  // Its own timer: tries the writes it holds again (a full disk).
  caf::reacts_to<tick_atom>>;

/// Owns the bus PUB socket (a ZeroMQ socket must stay on one thread).
using egress_actor = caf::typed_actor<
  // Publishes payload on topic; fire and forget, like PUB itself.
  caf::reacts_to<publish_atom, std::string, std::string>>;

} // namespace paratune
