#include "daemon/daemon_http.hpp"

#include "core/value_range.hpp"
#include "daemon/tuning_daemon.hpp"
#include "dashboard/dashboard_server.hpp"

namespace paratune {

daemon_http::~daemon_http() {
  if (server_)
    server_->stop();
}

std::string daemon_http::address() const {
  return host_ + ":" + std::to_string(server_->port());
}

caf::expected<std::unique_ptr<daemon_http>> start_daemon_http(tuning_daemon& daemon,
                                                              const std::string& host_port) {
  if (host_port.empty())
    return std::unique_ptr<daemon_http>{};
  const auto colon = host_port.rfind(':');
  const auto port_text = host_port.substr(colon + 1);
  dashboard_options opts;
  opts.host = host_port.substr(0, colon);
  opts.port = port_text == "*" ? 0 : int(parse_integer("http port", port_text, {0, 65535}));
  std::unique_ptr<daemon_http> http{new daemon_http};
  http->host_ = opts.host;
  http->server_ = std::make_unique<dashboard_server>(daemon.pool(), opts);
  auto* d = &daemon;
  if (auto added = http->server_->add_get("/metrics", "text/plain; version=0.0.4",
                                          [d] { return d->metrics(); });
      !added)
    return added.error();
  if (auto added =
        http->server_->add_get("/health", "application/json", [d] { return d->health_json(); });
      !added)
    return added.error();
  if (auto started = http->server_->start(); !started)
    return started.error();
  return http;
}

} // namespace paratune
