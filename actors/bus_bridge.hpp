#pragma once

#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/interfaces.hpp"
#include "adapters/bus/zmq_bus.hpp"

namespace paratune {

/// Connects CAF actors to the ZeroMQ bus: an egress actor owns the PUB
/// socket, and the subscriber's poller thread (a foreign thread) hands each
/// message to the actors registered for its topic prefix with anon_send,
/// as (bus_atom, topic, payload).
class bus_bridge {
public:
  /// Connects to an existing proxy at `ep` and waits until the bus carries
  /// messages (slow-joiner handshake). Throws std::runtime_error otherwise.
  bus_bridge(caf::actor_system& sys, zmq::context_t& ctx, const bus_endpoints& ep);
  ~bus_bridge();
  bus_bridge(const bus_bridge&) = delete;
  bus_bridge& operator=(const bus_bridge&) = delete;

  /// Delivers every message whose topic starts with `prefix` to `target`.
  /// The bridge holds only a weak reference: a terminated actor is skipped.
  int subscribe(const std::string& prefix, const caf::actor& target);
  void unsubscribe(int id);

  egress_actor egress() const { return egress_; }

private:
  std::unique_ptr<bus_subscriber> subscriber_;
  egress_actor egress_;
};

} // namespace paratune
