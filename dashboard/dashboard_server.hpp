#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <caf/expected.hpp>

namespace paratune {

class message_pool;

/// One request the dashboard answered, for an access log.
struct dashboard_request {
  std::string method;  ///< "GET", "HEAD", "POST" ...
  std::string path;    ///< decoded, without the query
  int status = 0;      ///< the HTTP status it was answered with
};

struct dashboard_options {
  std::string host = "127.0.0.1";
  int port = 0;                   ///< 0: any free port (port() tells which)
  std::size_t max_sessions = 200; ///< sessions listed, newest first
  /// Connections open at once, of all peers. The server is event-driven (one
  /// thread for every connection), so a waiting connection costs a socket
  /// and its buffer, not a thread. Past the bound the peer holding the most
  /// gives its oldest connection still waiting for a request (the owner's
  /// only to the owner). start() lowers it to fit the open-file limit.
  std::size_t max_connections = 1024;
  /// Connections one peer holds at once (a local user by uid on the
  /// loopback, else an address); past it the peer's oldest connection still
  /// waiting for its request is closed.
  std::size_t max_connections_per_peer = 256;
  /// A request's header arrives whole within this of its connection's
  /// opening (or of the answer before it on a kept-alive connection), or the
  /// connection is closed, however steadily it drips.
  std::chrono::milliseconds request_deadline{10'000};
  /// An answer is taken whole within this of its request's arrival.
  std::chrono::milliseconds answer_deadline{10'000};
  /// A connection with nothing sent or taken for this long is closed
  /// (between kept-alive requests too).
  std::chrono::seconds idle_timeout{2};
  /// When set, every request must carry it (Authorization: Bearer TOKEN,
  /// or ?token=TOKEN); others are answered 401. For a dashboard beyond the
  /// loopback.
  std::string token;
  /// The most a connection buffers of a request (its request line and
  /// headers; the server answers 431 or 414 beyond). No route reads a
  /// body: the methods that carry one are answered 405 before it is read.
  std::size_t max_request_bytes = 16 * 1024;
  /// Called on the server's thread after each answer was sent (an access
  /// log); none when empty.
  std::function<void(const dashboard_request&)> on_request;
};

/// What the server did with connections since start().
struct dashboard_connection_stats {
  std::size_t open = 0;              ///< open now, not yet shed
  std::size_t accepted = 0;
  std::size_t shed_deadline = 0;     ///< past the request or answer deadline
  std::size_t shed_peer_bound = 0;   ///< over max_connections_per_peer
  std::size_t shed_total_bound = 0;  ///< over max_connections
  std::size_t max_connections = 0;   ///< the bound in force (after the open-file limit)
};

/// The read-only web dashboard over a pool: the sessions, a live trial
/// table, the MFU chart, each trial's diagnosis and failure, as pages and
/// JSON. GET and HEAD only; every other method is answered 405 and changes
/// nothing (the dashboard holds the pool as const and never writes it).
///
///   /                           the sessions, newest first
///   /session/<id>               one session's page (polls while it runs)
///   /api/sessions               the sessions as JSON
///   /api/sessions/<id>          one session as JSON (dashboard_json.hpp)
///   /api/sessions/<id>/mfu.svg  its MFU chart
///
/// A session id that is not a plain name ([A-Za-z0-9._-], at most 128
/// characters) is answered 400, an unknown one 404, a pool that cannot be
/// read 500 with a short message. It serves on a thread of its own between
/// start() and stop(): libmicrohttpd's event loop (epoll), which also closes
/// the connections a request deadline or a bound sheds
/// (core/http_connection_table.hpp).
class dashboard_server {
public:
  dashboard_server(std::shared_ptr<const message_pool> pool, dashboard_options options);
  explicit dashboard_server(std::shared_ptr<const message_pool> pool)
    : dashboard_server(std::move(pool), dashboard_options{}) {}
  /// Stops it.
  ~dashboard_server();
  dashboard_server(const dashboard_server&) = delete;
  dashboard_server& operator=(const dashboard_server&) = delete;

  /// Serves `body()` with `content_type` at exactly `path` (e.g. the
  /// daemon's /metrics and /health). Refused once the server started, or
  /// for a path that is not absolute.
  caf::expected<void> add_get(const std::string& path, const std::string& content_type,
                              std::function<std::string()> body);

  /// Binds host:port and serves until stop(). An error names the address
  /// when it cannot bind; a server starts once.
  caf::expected<void> start();

  /// The bound port; 0 before start().
  int port() const;

  /// What it did with connections so far.
  dashboard_connection_stats stats() const;

  /// Stops serving and joins the server's thread; nothing when not running.
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace paratune
