#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <zmq.hpp>

#include "messages/control_wire.hpp"

namespace paratune {

/// Why a history request got no usable page.
enum class history_failure {
  unreachable, ///< the endpoint does not parse, or the socket could not send
  timeout,     ///< no reply within the client's timeout
  malformed,   ///< the reply is not one msgpack control reply
  refused,     ///< the server answered ok = false; its reason is in the text
};

const char* to_string(history_failure kind);

struct history_error {
  history_failure kind = history_failure::unreachable;
  std::string text; ///< names the endpoint and what went wrong
};

/// One page of a session's pool history, or why there is none.
struct history_result {
  control::reply page;                ///< ok, records, last_seq, more
  std::optional<history_error> error; ///< set when `page` is not to be used
  bool ok() const { return !error; }
};

/// Reads the bytes of a reply to a history request for `session` after
/// `after_seq` from `endpoint`, as history_client::fetch does: msgpack with
/// wire::unpack's size limits, ok, the records of that session in
/// increasing order above `after_seq`, and a last_seq not below the last
/// record. Never throws; a failure names the endpoint.
history_result decode_history_reply(std::string_view bytes, const std::string& session,
                                    uint64_t after_seq, const std::string& endpoint);

/// Asks the pool's owner for records a subscriber missed: the control
/// protocol's `history` request over a REQ socket to its ROUTER endpoint.
/// Replies are decoded with wire::unpack's size limits, and the socket
/// refuses a message above control::max_message_bytes. A REQ socket whose
/// request went unanswered cannot send again, so a timeout replaces it.
/// One thread uses a client.
class history_client {
public:
  history_client(zmq::context_t& ctx, std::string endpoint, std::chrono::milliseconds timeout);

  /// The session's records above `after_seq`, at most `limit` (0: the
  /// server's cap).
  history_result fetch(const std::string& session, uint64_t after_seq, uint32_t limit = 0);

  const std::string& endpoint() const { return endpoint_; }
  uint64_t requests() const { return requests_; }

private:
  history_error failure(history_failure kind, const std::string& what) const;
  void connect();

  zmq::context_t& ctx_;
  std::string endpoint_;
  std::chrono::milliseconds timeout_;
  std::optional<zmq::socket_t> socket_;
  uint64_t requests_ = 0;
};

} // namespace paratune
