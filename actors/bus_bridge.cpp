#include "actors/bus_bridge.hpp"

#include <atomic>
#include <set>

#include <caf/all.hpp>

#include "messages/codec.hpp"

namespace paratune {

namespace {

struct egress_state {
  std::unique_ptr<bus_publisher> publisher;
  static inline const char* name = "egress";
};

egress_actor::behavior_type egress_loop(egress_actor::stateful_pointer<egress_state> self,
                                        std::shared_ptr<bus_publisher> pub) {
  // The publisher moves to this actor's own thread for good (detached).
  self->state.publisher.reset(new bus_publisher(std::move(*pub)));
  return {
    [=](publish_atom, const std::string& topic, const std::string& payload) {
      self->state.publisher->publish(topic, payload);
    },
  };
}

} // namespace

bus_bridge::bus_bridge(caf::actor_system& sys, zmq::context_t& ctx, const bus_endpoints& ep) {
  subscriber_ = std::make_unique<bus_subscriber>(ctx, ep);
  subscriber_->on_gap([this](const std::string& topic, uint64_t) { on_gap(topic); });
  auto pub = std::make_shared<bus_publisher>(ctx, ep);
  if (!subscriber_->await_connected(*pub, std::chrono::seconds(10)))
    throw std::runtime_error("the bus at " + ep.publish + " carries no messages");
  egress_ = sys.spawn<caf::detached>(egress_loop, pub);
}

bus_bridge::~bus_bridge() {
  // Joins the poller before the subscriber goes: a handler running now may
  // still call unsubscribe(), which needs subscriber_ (reset() would null
  // the pointer first, then join: a crash found by the relay test under load).
  subscriber_->stop(); // no anon_send after this
  subscriber_.reset();
  caf::anon_send_exit(egress_, caf::exit_reason::user_shutdown);
}

int bus_bridge::subscribe(const std::string& prefix, const bus_agent_actor& target) {
  return subscribe(prefix, caf::actor_cast<caf::weak_actor_ptr>(target), false);
}

int bus_bridge::subscribe(const std::string& prefix, caf::weak_actor_ptr weak,
                          bool replay_on_gap) {
  // The id is known once subscribe() returns; the handler needs it to drop
  // the subscription of an actor that has gone. Dropping it here, on the
  // poller thread, rather than in the actor's own cleanup keeps the bridge
  // out of reach of an actor that ends while the runtime is stopping.
  auto own_id = std::make_shared<std::atomic<int>>(0);
  const int id = subscriber_->subscribe(prefix, [this, weak, own_id](const std::string& topic,
                                                                     const std::string& payload) {
    if (auto strong = caf::actor_cast<bus_agent_actor>(weak))
      caf::anon_send(strong, bus_atom_v, topic, payload);
    else if (const int gone = own_id->load())
      unsubscribe(gone);
  });
  own_id->store(id);
  std::lock_guard<std::mutex> guard{mutex_};
  targets_[id] = weak;
  if (replay_on_gap)
    replay_targets_[id] = {prefix, weak};
  return id;
}

void bus_bridge::unsubscribe(int id) {
  subscriber_->unsubscribe(id);
  std::lock_guard<std::mutex> guard{mutex_};
  targets_.erase(id);
  replay_targets_.erase(id);
}

void bus_bridge::sweep() {
  std::vector<int> gone;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    for (const auto& [id, weak] : targets_)
      if (!caf::actor_cast<caf::actor>(weak))
        gone.push_back(id);
  }
  for (int id : gone)
    unsubscribe(id);
}

void bus_bridge::subscribe_while_alive(const replaying_actor& self,
                                       const std::vector<std::string>& prefixes) {
  for (const auto& prefix : prefixes)
    subscribe(prefix, caf::actor_cast<caf::weak_actor_ptr>(self), true);
}

live_subscriptions::live_subscriptions(bus_bridge& bridge, caf::scoped_actor& self,
                                       const std::vector<std::string>& prefixes,
                                       std::chrono::milliseconds timeout)
  : bridge_(bridge) {
  std::vector<std::string> probes;
  for (const auto& prefix : prefixes) {
    ids_.push_back(bridge_.subscribe(prefix, caf::actor_cast<bus_agent_actor>(self)));
    probes.push_back(prefix + "_probe");
  }
  live_ = bridge_.await_delivery(self, probes, timeout);
}

live_subscriptions::~live_subscriptions() {
  for (int id : ids_)
    bridge_.unsubscribe(id);
}

void bus_bridge::on_gap(const std::string& topic) {
  std::lock_guard<std::mutex> guard{mutex_};
  for (const auto& [_, target] : replay_targets_)
    if (topic.compare(0, target.first.size(), target.first) == 0)
      if (auto strong = caf::actor_cast<replaying_actor>(target.second))
        caf::anon_send(strong, replay_atom_v);
}

bool bus_bridge::await_subscribed(caf::actor_system& sys, const std::vector<std::string>& prefixes,
                                  std::chrono::milliseconds timeout) {
  caf::scoped_actor self{sys};
  return live_subscriptions{*this, self, prefixes, timeout}.live();
}

bool bus_bridge::await_delivery(caf::scoped_actor& self, const std::vector<std::string>& topics,
                                std::chrono::milliseconds timeout) {
  wire::envelope probe;
  probe.type = "probe"; // no agent handles it
  probe.session = "_probe";
  const auto payload = wire::pack(probe);
  std::set<std::string> unseen(topics.begin(), topics.end());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!unseen.empty() && std::chrono::steady_clock::now() < deadline) {
    for (const auto& t : unseen)
      self->send(egress_, publish_atom_v, t, payload);
    bool quiet = false;
    while (!quiet && !unseen.empty())
      self->receive(
        [&](bus_atom, const std::string& topic, const std::string&) { unseen.erase(topic); },
        caf::after(std::chrono::milliseconds(20)) >> [&] { quiet = true; });
  }
  return unseen.empty();
}

} // namespace paratune
