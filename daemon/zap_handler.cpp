#include "daemon/zap_handler.hpp"

#include <chrono>
#include <iterator>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <zmq_addon.hpp>

#include "adapters/bus/receive_message.hpp"
#include "core/input_error.hpp"
#include "daemon/curve_keys.hpp"

namespace paratune {

namespace {

/// ZAP's request frames (RFC 27): version, request id, domain, address,
/// identity, mechanism, then the mechanism's credentials.
constexpr size_t zap_request_frames = 6;

control_peer peer_of(const std::vector<zmq::message_t>& frames) {
  control_peer p;
  p.address = frames[3].to_string();
  p.mechanism = parse_control_mechanism(frames[5].to_string_view());
  p.ipc = parse_ipc_peer(p.address);
  if (p.mechanism == control_mechanism::curve && frames.size() > zap_request_frames
      && frames[6].size() == 32) {
    char z85[41] = {};
    zmq_z85_encode(z85, static_cast<const uint8_t*>(frames[6].data()), 32);
    p.client_key = z85;
  }
  return p;
}

std::string peer_words(const control_peer& p) {
  if (p.ipc)
    return fmt::format("uid {} (pid {}) on the Unix socket", p.ipc->uid, p.ipc->pid);
  if (!p.client_key.empty())
    return fmt::format("CURVE key {} from {}", p.client_key, p.address);
  return "a client at " + (p.address.empty() ? std::string("an unknown address") : p.address);
}

} // namespace

zap_handler::zap_handler(zmq::context_t& ctx, control_access_source source)
  : socket_(ctx, zmq::socket_type::rep), source_(std::move(source)) {
  socket_.set(zmq::sockopt::linger, 0);
  try {
    socket_.bind("inproc://zeromq.zap.01");
  } catch (const zmq::error_t& e) {
    throw std::runtime_error(std::string("cannot start the control endpoint's authentication: ")
                             + e.what());
  }
  thread_ = std::thread([this] { run(); });
}

zap_handler::~zap_handler() {
  stop_ = true;
  if (thread_.joinable())
    thread_.join();
}

control_access_policy zap_handler::policy() const {
  control_access_policy p{source_.owner_uid, source_.allowed_uids, {}};
  if (source_.authorized_keys_dir.empty())
    return p;
  try {
    p.client_keys = read_authorized_keys(source_.authorized_keys_dir);
  } catch (const input_error& e) {
    // A folder that cannot be read hears nobody, loudly.
    spdlog::error("control: authorized_keys: {}", e.what());
  }
  return p;
}

void zap_handler::run() {
  while (!stop_) {
    auto received = receive_message(socket_, std::chrono::milliseconds(100));
    if (!received)
      continue;
    auto& frames = *received;
    if (frames.size() < zap_request_frames) {
      // Not a ZAP request; a REP socket must still answer something.
      socket_.send(zmq::str_buffer("1.0"), zmq::send_flags::none);
      continue;
    }
    const auto peer = peer_of(frames);
    const auto decision = decide_control_access(policy(), peer);
    if (decision.allowed) {
      ++allowed_;
    } else {
      ++refused_;
      spdlog::warn("control: refused {}: {}", peer_words(peer), decision.reason);
    }
    socket_.send(zmq::str_buffer("1.0"), zmq::send_flags::sndmore);
    socket_.send(frames[1], zmq::send_flags::sndmore); // the request id
    socket_.send(zmq::buffer(std::string(decision.allowed ? "200" : "400")),
                 zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(decision.allowed ? std::string("OK") : decision.reason),
                 zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(decision.user), zmq::send_flags::sndmore);
    socket_.send(zmq::message_t{}, zmq::send_flags::none); // no metadata
  }
}

std::string zap_handler::prometheus() const {
  return fmt::format("# HELP paratune_control_connections_total Clients that connected to the "
                     "control endpoint, by the authentication's outcome.\n"
                     "# TYPE paratune_control_connections_total counter\n"
                     "paratune_control_connections_total{{outcome=\"allowed\"}} {}\n"
                     "paratune_control_connections_total{{outcome=\"refused\"}} {}\n",
                     allowed_.load(), refused_.load());
}

} // namespace paratune
