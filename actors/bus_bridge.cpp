#include "actors/bus_bridge.hpp"

#include <caf/all.hpp>

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
  auto pub = std::make_shared<bus_publisher>(ctx, ep);
  if (!subscriber_->await_connected(*pub, std::chrono::seconds(10)))
    throw std::runtime_error("the bus at " + ep.publish + " carries no messages");
  egress_ = sys.spawn<caf::detached>(egress_loop, pub);
}

bus_bridge::~bus_bridge() {
  subscriber_.reset(); // joins the poller: no anon_send after this
  caf::anon_send_exit(egress_, caf::exit_reason::user_shutdown);
}

int bus_bridge::subscribe(const std::string& prefix, const caf::actor& target) {
  caf::weak_actor_ptr weak = caf::actor_cast<caf::weak_actor_ptr>(target);
  return subscriber_->subscribe(prefix, [weak](const std::string& topic,
                                               const std::string& payload) {
    if (auto strong = caf::actor_cast<caf::actor>(weak))
      caf::anon_send(strong, bus_atom_v, topic, payload);
  });
}

void bus_bridge::unsubscribe(int id) {
  subscriber_->unsubscribe(id);
}

} // namespace paratune
