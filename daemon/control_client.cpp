#include "daemon/control_client.hpp"

#include "daemon/curve_keys.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"

namespace paratune {

control_client::control_client(std::string endpoint, std::chrono::milliseconds timeout,
                               std::string server_public_key)
  : endpoint_(std::move(endpoint)), timeout_(timeout), server_key_(std::move(server_public_key)) {
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
    const auto mine = new_curve_keypair();
    socket_->set(zmq::sockopt::curve_serverkey, server_key_);
    socket_->set(zmq::sockopt::curve_publickey, mine.public_key);
    socket_->set(zmq::sockopt::curve_secretkey, mine.secret_key);
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
                                                + std::to_string(timeout_.count()) + " ms");
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
