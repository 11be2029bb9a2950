#include "daemon/relay_ingress.hpp"

#include <chrono>
#include <iterator>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <zmq_addon.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "core/text.hpp"
#include "messages/topics.hpp"

namespace paratune {

relay_ingress::relay_ingress(zmq::context_t& ctx, const std::string& endpoint,
                             const std::string& bus_publish)
  : in_(ctx, zmq::socket_type::sub), out_(ctx, zmq::socket_type::pub) {
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
    throw std::runtime_error("cannot bind the relay ingress " + endpoint + ": " + e.what());
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

void relay_ingress::run() {
  zmq::pollitem_t item{in_.handle(), 0, ZMQ_POLLIN, 0};
  while (!stop_) {
    zmq::poll(&item, 1, std::chrono::milliseconds(100));
    if (!(item.revents & ZMQ_POLLIN))
      continue;
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(in_, std::back_inserter(frames), zmq::recv_flags::dontwait))
      continue;
    // [topic][payload][sequence], as every bus message.
    const bool relay_line = frames.size() == 3 && topics::is_relay(frames[0].to_string_view());
    if (!relay_line) {
      if (refused_++ % 1000 == 0) // a flood is logged, not every frame of it
        spdlog::warn("bus: relay ingress dropped a message on '{}' ({} frames): only relay "
                     "lines come from cluster nodes ({} dropped so far)",
                     frames.empty() ? std::string() : printable_excerpt(frames[0].to_string_view(), 80),
                     frames.size(), refused_.load());
      continue;
    }
    ++passed_;
    zmq::send_multipart(out_, frames, zmq::send_flags::dontwait);
  }
}

std::string relay_ingress::prometheus() const {
  return fmt::format("# HELP paratune_relay_ingress_messages_total Messages from cluster nodes "
                     "at the relay ingress: relay lines passed on, anything else dropped.\n"
                     "# TYPE paratune_relay_ingress_messages_total counter\n"
                     "paratune_relay_ingress_messages_total{{outcome=\"passed\"}} {}\n"
                     "paratune_relay_ingress_messages_total{{outcome=\"dropped\"}} {}\n",
                     passed_.load(), refused_.load());
}

} // namespace paratune
