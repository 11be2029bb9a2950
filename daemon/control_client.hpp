#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/expected.hpp>
#include <zmq.hpp>

#include "daemon/curve_keys.hpp"
#include "messages/control_wire.hpp"

namespace paratune {

/// A client of the daemon's control endpoint: one request at a time, each
/// waiting at most `timeout` for its reply. A reply that does not decode,
/// or none in time, is an error naming the endpoint; after a timeout the
/// socket is replaced, so the next request starts clean.
class control_client {
public:
  /// With `server_public_key` (Z85) it talks CURVE as `client`, whose
  /// public key must be in the daemon's authorized_keys (without one, a key
  /// pair made for this client, which a daemon with an allow-list refuses).
  explicit control_client(std::string endpoint,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10),
                          std::string server_public_key = {}, curve_keypair client = {});
  ~control_client();

  /// The daemon's reply (ok or a refusal with its reason), or an error
  /// when no reply came.
  caf::expected<control::reply> call(const control::request& r);

  const std::string& endpoint() const { return endpoint_; }

private:
  void connect();

  std::string endpoint_;
  std::chrono::milliseconds timeout_;
  std::string server_key_;
  curve_keypair client_key_;
  zmq::context_t ctx_{1};
  std::unique_ptr<zmq::socket_t> socket_;
};

} // namespace paratune
