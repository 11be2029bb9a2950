#pragma once

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
  /// Connections served at once, each on a thread of its own (an idle one
  /// holds its thread for the keep-alive timeout, 1 s); more wait their turn.
  std::size_t max_connections = 256;
  /// When set, every request must carry it (Authorization: Bearer TOKEN,
  /// or ?token=TOKEN); others are answered 401. For a dashboard beyond the
  /// loopback.
  std::string token;
  /// The longest request body httplib would read. No route reads one: the
  /// methods that carry one are answered 405 before it is read, and the
  /// request line and headers are bounded by httplib (8 KiB each).
  std::size_t max_request_bytes = 16 * 1024;
  /// Called on a server thread after each answer was sent (an access log);
  /// none when empty.
  std::function<void(const dashboard_request&)> on_request;
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
/// start() and stop().
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

  /// Stops serving and joins the server's thread; nothing when not running.
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace paratune
