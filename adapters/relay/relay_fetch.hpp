#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <zmq.hpp>

#include "adapters/relay/relay_wire.hpp"
#include "core/relay/relay_line_buffer.hpp"

namespace paratune {

/// Asks the relay at `endpoint` (its announced fetch socket) for lines
/// again. nullopt when it does not answer within `timeout` (it has exited,
/// or is unreachable) or answers something that does not decode. Each call
/// has a socket of its own: a REQ socket whose request went unanswered
/// cannot be used again.
std::optional<fetch_reply> fetch_from_relay(zmq::context_t& ctx, const std::string& endpoint,
                                            fetch_request request,
                                            std::chrono::milliseconds timeout);

/// The relay's side: a REP socket serving fetches from its line buffer.
class relay_fetch_server {
public:
  /// Binds `bind` (e.g. "tcp://*:*"); throws zmq::error_t when it cannot.
  relay_fetch_server(zmq::context_t& ctx, const std::string& bind);

  /// The endpoint as bound with its host replaced by `host`: what the relay
  /// announces ("tcp://0.0.0.0:41235" -> "tcp://node7:41235").
  std::string announced(const std::string& host) const;

  /// Answers one waiting request, if any, from `lines`; waits at most
  /// `wait` for one. A request that does not decode gets an empty reply
  /// (REP must answer before it can read the next). A signal that
  /// interrupts the wait ends it early.
  void serve(const relay_line_buffer& lines, std::chrono::milliseconds wait);
  uint64_t served() const { return served_; }

private:
  void answer(const relay_line_buffer& lines, std::chrono::milliseconds wait);

  zmq::socket_t socket_;
  std::string bound_;
  uint64_t served_ = 0;
};

} // namespace paratune
