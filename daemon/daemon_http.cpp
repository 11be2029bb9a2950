#include "daemon/daemon_http.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <sys/resource.h>
#include <sys/stat.h>

#include "core/text.hpp"
#include "core/value_range.hpp"
#include "messages/ec.hpp"
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

namespace {

/// The dashboard's token: the file's one line, in a file only its owner
/// reads.
caf::expected<std::string> read_http_token(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return caf::make_error(ec::bad_input, "http_token_file: " + path + ": no such file");
  if ((st.st_mode & 077) != 0)
    return caf::make_error(ec::bad_input, "http_token_file: " + path
                                            + ": others may read it (chmod 600)");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const auto token = trim(text.str(), " \t\r\n");
  if (token.size() < 16)
    return caf::make_error(ec::bad_input, "http_token_file: " + path
                                            + ": the token must be at least 16 characters");
  return token;
}

/// Raises the soft limit on open files toward the hard one, so that the
/// dashboard's 1,024 connections fit beside the pool's files and the bus's
/// sockets (a login node's default soft limit is often 1,024). The
/// dashboard cuts its bound to what the limit leaves (dashboard_server.cpp).
void raise_open_files(rlim_t wanted) {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur >= wanted)
    return;
  files.rlim_cur = files.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, files.rlim_max);
  ::setrlimit(RLIMIT_NOFILE, &files);
}

/// The dashboard's own connections, in Prometheus text: what a scrape shows
/// of slow or crowding clients being shed.
std::string http_metrics(const dashboard_connection_stats& s) {
  std::string out =
    "# HELP paratune_http_connections Dashboard connections open now.\n"
    "# TYPE paratune_http_connections gauge\n"
    "paratune_http_connections " + std::to_string(s.open) + "\n"
    "# HELP paratune_http_connections_max Dashboard connections the server keeps at most.\n"
    "# TYPE paratune_http_connections_max gauge\n"
    "paratune_http_connections_max " + std::to_string(s.max_connections) + "\n"
    "# HELP paratune_http_connections_accepted_total Dashboard connections accepted.\n"
    "# TYPE paratune_http_connections_accepted_total counter\n"
    "paratune_http_connections_accepted_total " + std::to_string(s.accepted) + "\n"
    "# HELP paratune_http_connections_shed_total Dashboard connections the server closed: a "
    "request past its deadline, a peer or the server past its bound.\n"
    "# TYPE paratune_http_connections_shed_total counter\n";
  out += "paratune_http_connections_shed_total{reason=\"deadline\"} "
         + std::to_string(s.shed_deadline) + "\n";
  out += "paratune_http_connections_shed_total{reason=\"peer_bound\"} "
         + std::to_string(s.shed_peer_bound) + "\n";
  out += "paratune_http_connections_shed_total{reason=\"total_bound\"} "
         + std::to_string(s.shed_total_bound) + "\n";
  return out;
}

} // namespace

caf::expected<std::unique_ptr<daemon_http>>
start_daemon_http(tuning_daemon& daemon, const std::string& host_port,
                  const std::string& token_file) {
  if (host_port.empty())
    return std::unique_ptr<daemon_http>{};
  const auto colon = host_port.rfind(':');
  const auto port_text = host_port.substr(colon + 1);
  dashboard_options opts;
  opts.host = host_port.substr(0, colon);
  opts.port = port_text == "*" ? 0 : int(parse_integer("http port", port_text, {0, 65535}));
  if (!token_file.empty()) {
    auto token = read_http_token(token_file);
    if (!token)
      return token.error();
    opts.token = std::move(*token);
  }
  raise_open_files(4096);
  std::unique_ptr<daemon_http> http{new daemon_http};
  http->host_ = opts.host;
  http->server_ = std::make_unique<dashboard_server>(daemon.pool(), opts);
  auto* d = &daemon;
  auto* server = http->server_.get();
  if (auto added = http->server_->add_get("/metrics", "text/plain; version=0.0.4",
                                          [d, server] {
                                            return d->metrics() + http_metrics(server->stats());
                                          });
      !added)
    return added.error();
  if (auto added =
        http->server_->add_get("/health", "application/json", [d] { return d->health_json(); });
      !added)
    return added.error();
  if (auto started = http->server_->start(); !started) {
    // Named by its key: a port the config chose that another took.
    const auto& why = started.error().context();
    return caf::make_error(ec::bad_input,
                           "http: " + (why.size() > 0 && why.match_element<std::string>(0)
                                         ? why.get_as<std::string>(0)
                                         : describe(started.error())));
  }
  return http;
}

} // namespace paratune
