#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <zmq.hpp>

#include "messages/control_wire.hpp"

namespace paratune {

/// A ROUTER socket that answers control requests (one msgpack request per
/// message from a REQ or DEALER client) with whatever `answer` returns:
/// serve_history over a pool for the telemetry bench, the daemon's whole
/// control server for it. A request that does not decode gets a refusal
/// saying so, and so does one whose answer threw; messages above
/// control::max_message_bytes never arrive.
/// One thread uses it.
class control_router {
public:
  using answer_fn = std::function<control::reply(const control::request&)>;

  /// Binds `bind` ("tcp://127.0.0.1:*"); throws zmq::error_t when it cannot.
  control_router(zmq::context_t& ctx, const std::string& bind);

  /// The endpoint as bound, its wildcard port replaced by the real one.
  const std::string& endpoint() const { return endpoint_; }

  /// Answers the requests waiting, waiting at most `wait` for the first.
  /// Returns how many it answered.
  int serve(const answer_fn& answer, std::chrono::milliseconds wait);

  uint64_t answered() const { return answered_; }
  uint64_t undecodable() const { return undecodable_; }

private:
  bool serve_one(const answer_fn& answer);

  zmq::socket_t socket_;
  std::string endpoint_;
  uint64_t answered_ = 0;
  uint64_t undecodable_ = 0;
};

} // namespace paratune
