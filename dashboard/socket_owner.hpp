#pragma once

// Which local user holds the other end of a loopback TCP connection: the
// owner of the client's socket, as the kernel lists it (what identd answers,
// without asking the client). The dashboard bounds connections per local
// user with it, since on the loopback every user has the same address.

#include <optional>

#include <sys/socket.h>
#include <sys/types.h>

namespace paratune {

/// Whether `address` is a loopback one (127.0.0.0/8, ::1, or ::ffff:127.x).
bool is_loopback(const sockaddr* address);

/// Finds the owners of loopback sockets: by an exact sock_diag query
/// (NETLINK_SOCK_DIAG, one lookup in the kernel's socket table), else, where
/// netlink is refused, by reading /proc/net/tcp and /proc/net/tcp6.
class socket_owner_lookup {
public:
  socket_owner_lookup();
  ~socket_owner_lookup();
  socket_owner_lookup(const socket_owner_lookup&) = delete;
  socket_owner_lookup& operator=(const socket_owner_lookup&) = delete;

  /// The uid owning the socket whose own address is `peer` and whose remote
  /// address is `local` (the other end of a connection we accepted); none
  /// when neither the kernel's table nor /proc lists it (it closed already).
  std::optional<uid_t> owner_of(const sockaddr* peer, const sockaddr* local);

private:
  std::optional<uid_t> by_netlink(const sockaddr* peer, const sockaddr* local);
  int netlink_ = -1;
  unsigned sequence_ = 0; ///< tells this question's answer from a late one's
};

/// The same lookup through /proc/net/tcp{,6} alone (the fallback).
std::optional<uid_t> socket_owner_from_proc(const sockaddr* peer, const sockaddr* local);

} // namespace paratune
