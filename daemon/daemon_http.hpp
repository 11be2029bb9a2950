#pragma once

#include <memory>
#include <string>

#include <caf/expected.hpp>

namespace paratune {

class tuning_daemon;
class dashboard_server;

/// The daemon's HTTP side: the read-only dashboard over its pool, with
/// /metrics (Prometheus text) and /health (JSON) beside it.
class daemon_http {
public:
  ~daemon_http();
  /// HOST:PORT as bound.
  std::string address() const;

private:
  friend caf::expected<std::unique_ptr<daemon_http>>
  start_daemon_http(tuning_daemon&, const std::string&, const std::string&);
  std::string host_;
  std::unique_ptr<dashboard_server> server_;
};

/// Serves on `host_port` ("127.0.0.1:7713"; a port of 0 or * for any free
/// one); nothing (a null pointer) when `host_port` is empty. An error names
/// the address that could not be bound. With `token_file` every request
/// must carry the token the file holds (a file others may read, or an
/// empty one, is an error naming it).
caf::expected<std::unique_ptr<daemon_http>>
start_daemon_http(tuning_daemon& daemon, const std::string& host_port,
                  const std::string& token_file = {});

} // namespace paratune
