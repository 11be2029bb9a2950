#pragma once

// Which of the dashboard's open HTTP connections to close, and when: a
// request has a total deadline to arrive whole (a client dripping a byte a
// second does not keep its connection), each peer holds a bounded number of
// connections, and so does the server; a connection over a bound sheds the
// oldest one still waiting for its request, never one being answered, and
// never one of the owner's to make room for another peer. The server
// (dashboard/dashboard_server.cpp) tells the table what happens on each
// connection and closes what the table names.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace paratune {

/// Who a connection comes from. On the loopback every local user has the
/// same address, so there the peer is the user owning the other end (its
/// uid, as the kernel lists the socket); beyond it, the peer's address.
struct http_peer {
  enum class kind { local_user, address };
  kind by = kind::address;
  uint32_t uid = 0;     ///< for local_user
  std::string address;  ///< for address: the IP as text

  static http_peer local_user(uint32_t uid) { return {kind::local_user, uid, {}}; }
  static http_peer remote(std::string address) { return {kind::address, 0, std::move(address)}; }
  auto operator<=>(const http_peer&) const = default;
  /// "uid 1000" or "10.0.0.7", for a log line.
  std::string describe() const;
};

struct http_connection_limits {
  /// From a connection's opening, or the end of the answer before, to the
  /// last byte of its request's header.
  std::chrono::milliseconds request_deadline{10'000};
  /// From a request arriving whole to the last byte of its answer taken.
  std::chrono::milliseconds answer_deadline{10'000};
  std::size_t per_peer = 256; ///< open connections of one peer
  std::size_t total = 1024;   ///< open connections of all peers
};

enum class shed_reason { deadline, peer_bound, total_bound };
const char* to_string(shed_reason r);

/// The open connections, by an id the server gives each (increasing: a
/// higher id opened later). Not thread-safe: the server's event thread
/// alone calls it.
class http_connection_table {
public:
  using clock = std::chrono::steady_clock;
  using id = uint64_t;

  struct shed {
    id which;
    shed_reason why;
    bool operator==(const shed&) const = default;
  };

  /// `owner`: the daemon's own user, whose connections are never shed to
  /// make room for another peer's.
  http_connection_table(http_connection_limits limits, http_peer owner);

  /// A connection opened. Returns those to close now (at most one, which
  /// may be `which` itself when every other candidate is being answered):
  /// over the peer's bound its oldest waiting connection, else over the
  /// total bound the oldest waiting one of the peer holding the most
  /// (the owner only when the new connection is the owner's too).
  std::vector<shed> opened(id which, const http_peer& peer, clock::time_point now);
  /// Its request's header arrived whole: it is being answered.
  void request_arrived(id which, clock::time_point now);
  /// Its answer was taken: it waits for the next request.
  void answer_sent(id which, clock::time_point now);
  /// Those past their deadline, each named once.
  std::vector<shed> expired(clock::time_point now);
  /// The earliest deadline of an open connection not yet shed.
  std::optional<clock::time_point> next_deadline() const;
  /// It is gone (closed by either side, or after being shed).
  void closed(id which);

  /// Open connections not yet shed: in all, and of one peer.
  std::size_t open() const { return live_; }
  std::size_t open_of(const http_peer& peer) const;
  const http_connection_limits& limits() const { return limits_; }

private:
  enum class phase { awaiting_request, answering };
  struct entry {
    http_peer peer;
    phase state = phase::awaiting_request;
    clock::time_point deadline;
    bool shedding = false;
  };
  struct peer_connections {
    std::set<id> ids; ///< oldest first
    std::size_t live = 0;
  };

  /// The oldest connection of `peer` waiting for its request, not yet shed.
  std::optional<id> oldest_waiting(const http_peer& peer) const;
  /// Marks it shed: it no longer counts.
  shed mark(id which, shed_reason why);

  http_connection_limits limits_;
  http_peer owner_;
  std::map<id, entry> entries_;
  std::map<http_peer, peer_connections> peers_;
  std::size_t live_ = 0;
};

} // namespace paratune
