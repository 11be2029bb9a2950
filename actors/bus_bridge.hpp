#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/weak_intrusive_ptr.hpp>

#include "actors/agent_interfaces.hpp"
#include "actors/interfaces.hpp"
#include "adapters/bus/zmq_bus.hpp"

namespace paratune {

/// Connects CAF actors to the ZeroMQ bus: an egress actor owns the PUB
/// socket, and the subscriber's poller thread (a foreign thread) hands each
/// message to the actors registered for its topic prefix with anon_send,
/// as (bus_atom, topic, payload). When the subscriber sees a sequence gap on
/// a topic, the actors registered for it with `replay_on_gap` get
/// (replay_atom) and read what they missed from the pool.
class bus_bridge {
public:
  /// Connects to an existing proxy at `ep` and waits until the bus carries
  /// messages (slow-joiner handshake). Throws std::runtime_error otherwise.
  bus_bridge(caf::actor_system& sys, zmq::context_t& ctx, const bus_endpoints& ep);
  ~bus_bridge();
  bus_bridge(const bus_bridge&) = delete;
  bus_bridge& operator=(const bus_bridge&) = delete;

  /// Delivers every message whose topic starts with `prefix` to `target`.
  /// The bridge holds only a weak reference: once `target` has terminated,
  /// the next message for it drops the subscription. A blocking actor,
  /// which receive()s the bus messages itself, subscribes as
  /// caf::actor_cast<bus_agent_actor>(self).
  int subscribe(const std::string& prefix, const bus_agent_actor& target);
  void unsubscribe(int id);
  /// Drops the subscriptions of actors that have terminated (a long-lived
  /// process calls it as sessions come and go).
  void sweep();

  /// Waits until messages on each of `prefixes` reach this process: ZeroMQ
  /// applies a subscription asynchronously (the slow joiner), and what is
  /// published before it reaches the publisher is lost. For prefixes the
  /// caller has already subscribed an actor to; otherwise hold a
  /// live_subscriptions. False after `timeout`.
  bool await_subscribed(caf::actor_system& sys, const std::vector<std::string>& prefixes,
                        std::chrono::milliseconds timeout);

  /// Publishes a probe (an envelope of type "probe", which no agent
  /// handles) on each of `topics` until `self`, subscribed to them, has
  /// seen one of each. False after `timeout`.
  bool await_delivery(caf::scoped_actor& self, const std::vector<std::string>& topics,
                      std::chrono::milliseconds timeout);

  egress_actor egress() const { return egress_; }
  /// Sequence gaps the subscriber saw (messages lost on the bus).
  uint64_t gaps() const { return subscriber_->gaps(); }
  /// Messages this process's subscriber took from the bus.
  uint64_t received() const { return subscriber_->received(); }

  /// Subscribes `self` to every prefix, with a (replay_atom) on a gap, for
  /// as long as it lives (a session).
  void subscribe_while_alive(const replaying_actor& self,
                             const std::vector<std::string>& prefixes);

private:
  int subscribe(const std::string& prefix, caf::weak_actor_ptr target, bool replay_on_gap);
  void on_gap(const std::string& topic);

  std::unique_ptr<bus_subscriber> subscriber_;
  egress_actor egress_;
  std::mutex mutex_;
  /// Every subscription's actor, by subscription id.
  std::map<int, caf::weak_actor_ptr> targets_;
  /// Who wants a replay on a gap: subscription id -> (prefix, actor).
  std::map<int, std::pair<std::string, caf::weak_actor_ptr>> replay_targets_;
};

/// A blocking actor's subscriptions, live on the bus once constructed:
/// subscribed, then a probe published under each prefix came back
/// (await_delivery). ZeroMQ counts identical subscriptions, so while these
/// are held an actor that subscribes to the same prefixes receives from its
/// first message on, whenever its subscription is applied. Unsubscribed
/// when destroyed, which must happen before the bridge goes.
class live_subscriptions {
public:
  live_subscriptions(bus_bridge& bridge, caf::scoped_actor& self,
                     const std::vector<std::string>& prefixes,
                     std::chrono::milliseconds timeout);
  ~live_subscriptions();
  live_subscriptions(const live_subscriptions&) = delete;
  live_subscriptions& operator=(const live_subscriptions&) = delete;

  /// False when a probe did not come back within the timeout.
  bool live() const { return live_; }

private:
  bus_bridge& bridge_;
  std::vector<int> ids_;
  bool live_ = false;
};

} // namespace paratune
