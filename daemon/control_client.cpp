#include "daemon/control_client.hpp"

#include <cerrno>
#include <cstring>

#include <unistd.h>

#include "daemon/curve_keys.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"

namespace paratune {

namespace {

/// Why a Unix-socket endpoint may not have answered: ZeroMQ retries a
/// connect the kernel refused without a word, so the client asks itself.
std::string socket_hint(const std::string& endpoint) {
  if (endpoint.rfind("ipc://", 0) != 0)
    return {};
  const auto path = endpoint.substr(6);
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT)
    return " (no socket at " + path + ": is the daemon running with this state directory?)";
  if (::access(path.c_str(), W_OK) != 0)
    return " (cannot use " + path + ": " + std::strerror(errno)
           + "; only the daemon's owner and its control_users may)";
  return " (the daemon may have refused this user: its log names who it refused)";
}

} // namespace

control_client::control_client(std::string endpoint, std::chrono::milliseconds timeout,
                               std::string server_public_key, curve_keypair client)
  : endpoint_(std::move(endpoint)), timeout_(timeout), server_key_(std::move(server_public_key)),
    client_key_(std::move(client)) {
  if (!server_key_.empty() && client_key_.secret_key.empty())
    client_key_ = new_curve_keypair();
  connect();
}

control_client::~control_client() = default;

void control_client::connect() {
  socket_ = std::make_unique<zmq::socket_t>(ctx_, zmq::socket_type::req);
  socket_->set(zmq::sockopt::linger, 0);
  socket_->set(zmq::sockopt::maxmsgsize, control::max_message_bytes * 4);
  socket_->set(zmq::sockopt::rcvtimeo, int(timeout_.count()));
  socket_->set(zmq::sockopt::sndtimeo, int(timeout_.count()));
  if (!server_key_.empty()) {
    socket_->set(zmq::sockopt::curve_serverkey, server_key_);
    socket_->set(zmq::sockopt::curve_publickey, client_key_.public_key);
    socket_->set(zmq::sockopt::curve_secretkey, client_key_.secret_key);
  }
  socket_->connect(endpoint_);
}

caf::expected<control::reply> control_client::call(const control::request& r) {
  const auto bytes = wire::pack(r);
  zmq::message_t answer;
  try {
    if (!socket_->send(zmq::buffer(bytes), zmq::send_flags::none) ||
        !socket_->recv(answer, zmq::recv_flags::none)) {
      connect(); // a REQ socket that missed its reply cannot send again
      return caf::make_error(ec::bus_failure, "no answer from the daemon at " + endpoint_
                                                + " within "
                                                + std::to_string(timeout_.count()) + " ms"
                                                + socket_hint(endpoint_));
    }
  } catch (const zmq::error_t& e) {
    connect();
    return caf::make_error(ec::bus_failure,
                           "cannot talk to the daemon at " + endpoint_ + ": " + e.what());
  }
  try {
    return wire::unpack<control::reply>(answer.to_string_view(), "daemon reply");
  } catch (const wire::decode_error& e) {
    return caf::make_error(ec::decode_failure, endpoint_ + ": " + e.what());
  }
}

} // namespace paratune
