#pragma once

// Who may drive the daemon: the decision the control endpoint's ZAP handler
// makes for each connecting client, over what ZeroMQ says of the peer.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace paratune {

/// The security mechanism a client connected with (ZAP's mechanism frame).
enum class control_mechanism { null, curve, other };

control_mechanism parse_control_mechanism(std::string_view word);

/// The kernel's word on a Unix-socket peer (SO_PEERCRED).
struct peer_credentials {
  uint32_t uid = 0;
  uint32_t gid = 0;
  int64_t pid = 0;
};

/// ZeroMQ writes a Unix-socket peer's address as "[ADDRESS]:UID:GID:PID"
/// (libzmq 4.3, stream_engine_base.cpp's get_peer_address); a TCP peer's
/// address is its IP alone. None when `address` does not end that way.
std::optional<peer_credentials> parse_ipc_peer(std::string_view address);

/// A client as the ZAP handler hears it.
struct control_peer {
  control_mechanism mechanism = control_mechanism::null;
  std::string address;                       ///< ZeroMQ's peer address
  std::optional<peer_credentials> ipc;       ///< for a Unix-socket peer
  std::string client_key;                    ///< CURVE: the client's public key (Z85)
};

/// Who is heard: the daemon's own user and the users named in
/// `control_users` over the Unix socket; over TCP, CURVE clients whose
/// public key is in the `authorized_keys` folder and nobody else.
struct control_access_policy {
  uint32_t owner_uid = 0;
  std::set<uint32_t> allowed_uids;
  std::set<std::string> client_keys; ///< Z85
};

struct access_decision {
  bool allowed = false;
  std::string user;   ///< who it is, for the log and ZAP's User-Id ("uid:1000", "key:...")
  std::string reason; ///< why a refused peer was refused
};

access_decision decide_control_access(const control_access_policy& policy,
                                      const control_peer& peer);

} // namespace paratune
