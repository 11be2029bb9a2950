#pragma once

#include <atomic>
#include <set>
#include <string>
#include <thread>

#include <zmq.hpp>

#include "core/control_access.hpp"

namespace paratune {

/// Where the control endpoint's access policy comes from: the daemon's own
/// uid, the uids named in control_users, and the authorized_keys folder of
/// client public keys (read again at each connection, so that a key added
/// or removed counts from the next connection on).
struct control_access_source {
  uint32_t owner_uid = 0;
  std::set<uint32_t> allowed_uids;
  std::string authorized_keys_dir; ///< empty: no CURVE client is heard
};

/// ZeroMQ's authentication hook (ZAP, RFC 27) for the daemon's context: a
/// REP socket on inproc://zeromq.zap.01 that libzmq asks about every client
/// connecting to a socket with a ZAP domain or CURVE, before any of its
/// messages is read. Each answer is decide_control_access's; a refusal is
/// logged with the peer (its uid and pid, or its key and address). The
/// allowed peer's user ("uid:1000", "key:...") travels as ZAP's User-Id,
/// so each request can be logged with who sent it.
class zap_handler {
public:
  /// Binds inproc://zeromq.zap.01 in `ctx` (one per context) and starts
  /// answering; throws std::runtime_error when it cannot bind.
  zap_handler(zmq::context_t& ctx, control_access_source source);
  ~zap_handler();
  zap_handler(const zap_handler&) = delete;
  zap_handler& operator=(const zap_handler&) = delete;

  /// The two counters in Prometheus text format.
  std::string prometheus() const;

private:
  void run();
  /// The policy now: the uids, and the keys the folder holds now.
  control_access_policy policy() const;

  zmq::socket_t socket_;
  control_access_source source_;
  std::atomic<uint64_t> allowed_{0}, refused_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace paratune
