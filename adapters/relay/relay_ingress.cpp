#include "adapters/relay/relay_ingress.hpp"

#include <chrono>
#include <iterator>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <zmq_addon.hpp>

#include "adapters/bus/receive_message.hpp"
#include "adapters/bus/zmq_bus.hpp"
#include "core/relay/relay_topic.hpp"
#include "core/text.hpp"

namespace paratune {

relay_ingress::relay_ingress(zmq::context_t& ctx, const std::string& endpoint,
                             const std::string& bus_publish, const relay_key& master)
  : in_(ctx, zmq::socket_type::sub), out_(ctx, zmq::socket_type::pub), master_(master) {
  // Everything is taken and looked at, so that what is dropped is counted.
  in_.set(zmq::sockopt::subscribe, "");
  in_.set(zmq::sockopt::linger, 0);
  in_.set(zmq::sockopt::rcvhwm, default_high_water_mark);
  // A relay line is short (max_relay_line); a larger frame is no relay's.
  in_.set(zmq::sockopt::maxmsgsize, int64_t(1) << 20);
  out_.set(zmq::sockopt::linger, 0);
  out_.set(zmq::sockopt::sndhwm, default_high_water_mark);
  try {
    in_.bind(endpoint);
  } catch (const zmq::error_t& e) {
    // Named by the key that chose it (a daemon's config, a job's pool).
    throw std::runtime_error("relay_ingress: cannot bind " + endpoint + ": " + e.what());
  }
  bound_ = in_.get(zmq::sockopt::last_endpoint);
  out_.connect(bus_publish);
  thread_ = std::thread([this] { run(); });
}

relay_ingress::~relay_ingress() {
  stop_ = true;
  if (thread_.joinable())
    thread_.join();
}

relay_ingress::verdict relay_ingress::judge(const std::vector<zmq::message_t>& frames) const {
  // [topic][payload][bus sequence][signature]: a relay's signed line.
  const auto topic = frames.empty() ? std::string_view() : frames[0].to_string_view();
  const auto parts = parse_relay_topic(topic);
  if (!parts)
    return verdict::dropped;
  if (frames.size() != 4)
    return verdict::unauthenticated;
  const auto key = relay_trial_key(master_, parts->session, parts->trial);
  return relay_frame_authentic(key, topic, frames[1].to_string_view(),
                               frames[2].to_string_view(), frames[3].to_string_view())
             ? verdict::passed
             : verdict::unauthenticated;
}

void relay_ingress::count(verdict v, const std::vector<zmq::message_t>& frames) {
  if (v == verdict::passed) {
    ++passed_;
    return;
  }
  auto& counter = v == verdict::dropped ? dropped_ : unauthenticated_;
  // A flood is logged, not every frame of it.
  if (counter++ % 1000 != 0)
    return;
  const auto topic = frames.empty() ? std::string() : printable_excerpt(frames[0].to_string_view(), 80);
  if (v == verdict::dropped)
    spdlog::warn("bus: relay ingress dropped a message on '{}' ({} frames): only relay lines "
                 "come from cluster nodes ({} dropped so far)",
                 topic, frames.size(), counter.load());
  else
    spdlog::warn("bus: relay ingress refused a line on '{}': {} ({} refused so far)", topic,
                 frames.size() == 4 ? "its signature is not that trial's key's"
                                    : "it carries no signature",
                 counter.load());
}

void relay_ingress::run() {
  while (!stop_) {
    auto frames = receive_message(in_, std::chrono::milliseconds(100));
    if (!frames)
      continue;
    const auto v = judge(*frames);
    count(v, *frames);
    if (v != verdict::passed)
      continue;
    frames->pop_back(); // the agents' bus carries three frames
    zmq::send_multipart(out_, *frames, zmq::send_flags::dontwait);
  }
}

std::string relay_ingress::prometheus() const {
  return fmt::format("# HELP paratune_relay_ingress_messages_total Messages from cluster nodes "
                     "at the relay ingress: relay lines signed with their trial's key passed "
                     "on, relay lines without a valid signature refused, anything else "
                     "dropped.\n"
                     "# TYPE paratune_relay_ingress_messages_total counter\n"
                     "paratune_relay_ingress_messages_total{{outcome=\"passed\"}} {}\n"
                     "paratune_relay_ingress_messages_total{{outcome=\"unauthenticated\"}} {}\n"
                     "paratune_relay_ingress_messages_total{{outcome=\"dropped\"}} {}\n",
                     passed_.load(), unauthenticated_.load(), dropped_.load());
}

} // namespace paratune
