#include "dashboard/socket_owner.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/time.h>
#include <unistd.h>

namespace paratune {

namespace {

/// An address and port, an IPv4-mapped IPv6 one as IPv4 (the client's
/// socket of a connection to 127.0.0.1 is an IPv4 one, even where the
/// server's accepted socket is IPv6).
struct endpoint {
  int family = AF_UNSPEC;
  std::array<uint8_t, 16> addr{};
  uint16_t port = 0; ///< host order
};

std::optional<endpoint> endpoint_of(const sockaddr* a) {
  endpoint e;
  if (a == nullptr)
    return std::nullopt;
  if (a->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(a);
    e.family = AF_INET;
    std::memcpy(e.addr.data(), &v4->sin_addr, 4);
    e.port = ntohs(v4->sin_port);
    return e;
  }
  if (a->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(a);
    e.port = ntohs(v6->sin6_port);
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
      e.family = AF_INET;
      std::memcpy(e.addr.data(), v6->sin6_addr.s6_addr + 12, 4);
    } else {
      e.family = AF_INET6;
      std::memcpy(e.addr.data(), v6->sin6_addr.s6_addr, 16);
    }
    return e;
  }
  return std::nullopt;
}

/// As /proc/net/tcp{,6} writes an address: each 32-bit word of it in the
/// host's byte order, in hex, then the port.
std::string proc_text(const endpoint& e) {
  std::string out;
  char word[16];
  const int words = e.family == AF_INET ? 1 : 4;
  for (int i = 0; i < words; ++i) {
    uint32_t raw = 0;
    std::memcpy(&raw, e.addr.data() + 4 * i, 4);
    std::snprintf(word, sizeof word, "%08X", raw);
    out += word;
  }
  std::snprintf(word, sizeof word, ":%04X", e.port);
  return out + word;
}

} // namespace

bool is_loopback(const sockaddr* address) {
  const auto e = endpoint_of(address);
  if (!e)
    return false;
  if (e->family == AF_INET)
    return e->addr[0] == 127;
  static const std::array<uint8_t, 16> one{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return e->addr == one;
}

std::optional<uid_t> socket_owner_from_proc(const sockaddr* peer, const sockaddr* local) {
  const auto p = endpoint_of(peer);
  const auto l = endpoint_of(local);
  if (!p || !l || p->family != l->family)
    return std::nullopt;
  const auto want_local = proc_text(*p);
  const auto want_remote = proc_text(*l);
  std::ifstream table(p->family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6");
  std::string line;
  std::getline(table, line); // the column names
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local_address, remote_address, state, queues, timer, retransmits;
    uid_t uid = 0;
    if (!(fields >> slot >> local_address >> remote_address >> state >> queues >> timer
          >> retransmits >> uid))
      continue;
    if (local_address == want_local && remote_address == want_remote)
      return uid;
  }
  return std::nullopt;
}

socket_owner_lookup::socket_owner_lookup() {
  netlink_ = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (netlink_ >= 0) {
    // The kernel answers at once; a lost answer must not stall the server.
    timeval wait{0, 200'000};
    ::setsockopt(netlink_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  }
}

socket_owner_lookup::~socket_owner_lookup() {
  if (netlink_ >= 0)
    ::close(netlink_);
}

std::optional<uid_t> socket_owner_lookup::owner_of(const sockaddr* peer, const sockaddr* local) {
  if (netlink_ >= 0)
    if (const auto uid = by_netlink(peer, local))
      return uid;
  return socket_owner_from_proc(peer, local);
}

std::optional<uid_t> socket_owner_lookup::by_netlink(const sockaddr* peer, const sockaddr* local) {
  const auto p = endpoint_of(peer);
  const auto l = endpoint_of(local);
  if (!p || !l || p->family != l->family)
    return std::nullopt;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } ask{};
  ask.header.nlmsg_len = sizeof ask;
  ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  ask.header.nlmsg_flags = NLM_F_REQUEST; // one socket, looked up by its four-tuple
  ask.header.nlmsg_seq = ++sequence_;
  ask.request.sdiag_family = uint8_t(p->family);
  ask.request.sdiag_protocol = IPPROTO_TCP;
  ask.request.idiag_states = ~0u;
  // The client's socket: its source is the peer, its destination us.
  ask.request.id.idiag_sport = htons(p->port);
  ask.request.id.idiag_dport = htons(l->port);
  std::memcpy(ask.request.id.idiag_src, p->addr.data(), p->family == AF_INET ? 4 : 16);
  std::memcpy(ask.request.id.idiag_dst, l->addr.data(), l->family == AF_INET ? 4 : 16);
  ask.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  ask.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(netlink_, &ask, sizeof ask, 0, reinterpret_cast<sockaddr*>(&kernel),
               sizeof kernel) != ssize_t(sizeof ask))
    return std::nullopt;
  alignas(nlmsghdr) char answer[8192];
  for (;;) {
    int got = int(::recv(netlink_, answer, sizeof answer, 0));
    if (got <= 0)
      return std::nullopt;
    for (auto* h = reinterpret_cast<nlmsghdr*>(answer); NLMSG_OK(h, got);
         h = NLMSG_NEXT(h, got)) {
      if (h->nlmsg_seq != ask.header.nlmsg_seq)
        continue; // an answer to an earlier, timed-out question
      if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
        const auto* m = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
        return uid_t(m->idiag_uid);
      }
      return std::nullopt; // NLMSG_ERROR: not found, or refused
    }
  }
}

} // namespace paratune
