#include "dashboard/dashboard_server.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <caf/sec.hpp>
#include <microhttpd.h>

#include "core/http_connection_table.hpp"
#include "dashboard/dashboard_content.hpp"
#include "dashboard/page_frame.hpp"
#include "dashboard/socket_owner.hpp"
#include "messages/ec.hpp"

namespace paratune {

namespace {

constexpr const char* plain_text_type = "text/plain; charset=utf-8";

std::string what(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception of unknown type";
  }
}

bool read_only(const std::string& method) {
  return method == "GET" || method == "HEAD";
}

/// Compares in time independent of where the first difference is.
bool same_secret(const std::string& given, const std::string& token) {
  if (token.empty() || given.size() != token.size())
    return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < token.size(); ++i)
    diff |= static_cast<unsigned char>(given[i] ^ token[i]);
  return diff == 0;
}

std::string value_of(MHD_Connection* c, MHD_ValueKind kind, const char* key) {
  const char* v = MHD_lookup_connection_value(c, kind, key);
  return v == nullptr ? std::string() : std::string(v);
}

bool carries_token(MHD_Connection* c, const std::string& token) {
  const auto auth = value_of(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  if (auth.rfind("Bearer ", 0) == 0 && same_secret(auth.substr(7), token))
    return true;
  return same_secret(value_of(c, MHD_GET_ARGUMENT_KIND, "token"), token);
}

/// An answer with the headers it carries beyond the content's.
struct http_answer {
  dashboard_answer content;
  std::vector<std::pair<std::string, std::string>> headers;
};

http_answer plain(int status, std::string text) {
  return {{status, plain_text_type, std::move(text), data_policy()}, {}};
}

/// What a request is, kept from its arrival to its answer's end (the log).
struct request_record {
  std::string method;
  std::string path;
  int status = 0;
};

using connection_id = http_connection_table::id;

connection_id id_of(void* socket_context) {
  return static_cast<connection_id>(reinterpret_cast<uintptr_t>(socket_context));
}

/// The listening socket on host:port, with a backlog that holds a burst of
/// connections; -1 and `why` when it cannot be bound.
int listen_on(const std::string& host, int port, std::string& why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const auto service = std::to_string(port);
  why = "not an address of this host";
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || found == nullptr)
    return -1;
  int fd = -1;
  for (auto* a = found; a != nullptr; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0)
      continue;
    // SO_REUSEADDR rebinds a port a stopped server left, and (without
    // SO_REUSEPORT) still refuses one another server listens on.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1024) == 0)
      break;
    why = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(found);
  return fd;
}

/// Open files the server may use for connections: the soft limit less what
/// the rest of the process keeps (the pool's files, the bus's sockets).
std::size_t connections_that_fit(std::size_t wanted) {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY)
    return wanted;
  constexpr std::size_t kept_for_the_rest = 256;
  const auto cur = std::size_t(files.rlim_cur);
  const std::size_t fit = cur > 2 * kept_for_the_rest ? cur - kept_for_the_rest : cur / 2;
  return std::max<std::size_t>(1, std::min(wanted, fit));
}

} // namespace

struct dashboard_server::impl {
  /// A route added with add_get.
  struct added_route {
    std::string content_type;
    std::function<std::string()> body;
  };

  impl(std::shared_ptr<const message_pool> pool, dashboard_options opts)
    : options(std::move(opts)), content(std::move(pool), options.max_sessions) {}

  /// The dashboard's own routes, then the added ones; none: 404.
  std::optional<dashboard_answer> route(const std::string& path) {
    if (const auto it = added.find(path); it != added.end())
      return dashboard_answer{200, it->second.content_type, it->second.body(), data_policy()};
    if (path == "/")
      return content.sessions_page();
    if (path == "/api/sessions")
      return content.sessions_json();
    static const std::string page = "/session/";
    if (path.rfind(page, 0) == 0) {
      const auto id = path.substr(page.size());
      if (id.find('/') == std::string::npos)
        return content.session_page(id);
      return std::nullopt;
    }
    static const std::string api = "/api/sessions/";
    if (path.rfind(api, 0) == 0) {
      const auto rest = path.substr(api.size());
      const auto slash = rest.find('/');
      if (slash == std::string::npos)
        return content.session_json(rest);
      const auto id = rest.substr(0, slash);
      const auto tail = rest.substr(slash + 1);
      if (tail == "mfu.svg")
        return content.mfu_chart(id);
      if (tail == "panels")
        return content.panels(id);
    }
    return std::nullopt;
  }

  /// Refused before any route runs (and before a body is read).
  http_answer answer(MHD_Connection* c, const std::string& method, const std::string& path) {
    if (!options.token.empty() && !carries_token(c, options.token)) {
      auto a = plain(401, "this dashboard needs its token (Authorization: Bearer TOKEN)\n");
      a.headers.emplace_back("WWW-Authenticate", "Bearer");
      return a;
    }
    if (!read_only(method)) {
      auto a = plain(405, "method not allowed: the dashboard only reads (GET, HEAD)\n");
      a.headers.emplace_back("Allow", "GET, HEAD");
      // Its unread body must not be parsed as a request.
      a.headers.emplace_back("Connection", "close");
      return a;
    }
    try {
      if (auto found = route(path))
        return {std::move(*found), {}};
      return plain(404, "HTTP 404\n");
    } catch (...) {
      return plain(500, "internal error: " + what(std::current_exception()) + "\n");
    }
  }

  // libmicrohttpd's callbacks, all on the server's one thread.

  static MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                               const char*, const char*, size_t* upload_size, void** request) {
    auto& d = *static_cast<impl*>(cls);
    if (*request == nullptr) {
      // The first call: the request line and headers are whole.
      if (const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT))
        d.table->request_arrived(id_of(info->socket_context), http_connection_table::clock::now());
      auto* record = new request_record{method, url, 0};
      *request = record;
      // A GET or HEAD is answered once the request is whole, so that the
      // connection stays open for the next one; any other method at once,
      // before its body is read (libmicrohttpd then closes the connection).
      if (read_only(record->method))
        return MHD_YES;
      return d.respond(c, *record);
    }
    auto& record = *static_cast<request_record*>(*request);
    if (*upload_size != 0 || record.status != 0) {
      *upload_size = 0; // a body nobody reads
      return MHD_YES;
    }
    return d.respond(c, record);
  }

  /// Answers the request `record` names, and notes its status for the log.
  MHD_Result respond(MHD_Connection* c, request_record& record) {
    auto a = answer(c, record.method, record.path);
    record.status = a.content.status;
    auto* response = MHD_create_response_from_buffer(a.content.body.size(), a.content.body.data(),
                                                     MHD_RESPMEM_MUST_COPY);
    if (response == nullptr)
      return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
                            a.content.content_type.c_str());
    // What every answer carries: no MIME sniffing, no referrer, nothing
    // cached (a live page polls), and a policy that runs nothing unless the
    // page set its own.
    MHD_add_response_header(response, "Content-Security-Policy",
                            (a.content.policy.empty() ? data_policy() : a.content.policy).c_str());
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(response, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(response, "Cache-Control", "no-store");
    for (const auto& [name, value] : a.headers)
      MHD_add_response_header(response, name.c_str(), value.c_str());
    const auto queued = MHD_queue_response(c, unsigned(a.content.status), response);
    MHD_destroy_response(response);
    return queued;
  }

  static void on_completed(void* cls, MHD_Connection* c, void** request,
                           MHD_RequestTerminationCode) {
    auto& d = *static_cast<impl*>(cls);
    std::unique_ptr<request_record> record{static_cast<request_record*>(*request)};
    *request = nullptr;
    if (!record || record->status == 0)
      return; // never answered: the client left first
    if (const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT))
      d.table->answer_sent(id_of(info->socket_context), http_connection_table::clock::now());
    if (d.options.on_request)
      d.options.on_request({record->method, record->path, record->status});
  }

  static void on_connection(void* cls, MHD_Connection* c, void** socket_context,
                            MHD_ConnectionNotificationCode code) {
    auto& d = *static_cast<impl*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
      const auto which = id_of(*socket_context);
      d.table->closed(which);
      d.sockets.erase(which);
      d.open = d.table->open();
      return;
    }
    const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const int fd = info == nullptr ? -1 : info->connect_fd;
    const auto which = ++d.last_id;
    *socket_context = reinterpret_cast<void*>(uintptr_t(which));
    d.sockets[which] = fd;
    ++d.accepted;
    const auto now = http_connection_table::clock::now();
    for (const auto& s : d.table->opened(which, d.peer_of(fd), now))
      d.shed(s);
    d.open = d.table->open();
  }

  /// Who is at the other end of `fd`: on the loopback the local user owning
  /// the client's socket, else its address.
  http_peer peer_of(int fd) {
    sockaddr_storage peer{}, local{};
    socklen_t peer_size = sizeof peer, local_size = sizeof local;
    if (fd < 0 || ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0
        || ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0)
      return http_peer::remote("unknown");
    const auto* p = reinterpret_cast<const sockaddr*>(&peer);
    if (is_loopback(p))
      if (const auto uid = owners.owner_of(p, reinterpret_cast<const sockaddr*>(&local)))
        return http_peer::local_user(*uid);
    char text[INET6_ADDRSTRLEN] = "unknown";
    if (peer.ss_family == AF_INET)
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&peer)->sin_addr, text, sizeof text);
    else if (peer.ss_family == AF_INET6)
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&peer)->sin6_addr, text,
                  sizeof text);
    return http_peer::remote(text);
  }

  /// Closes both directions of a connection the table gave up; the event
  /// loop then sees it end and frees it (the socket stays open until then,
  /// so its descriptor cannot name another one meanwhile).
  void shed(const http_connection_table::shed& s) {
    const auto it = sockets.find(s.which);
    if (it != sockets.end() && it->second >= 0)
      ::shutdown(it->second, SHUT_RDWR);
    switch (s.why) {
    case shed_reason::deadline:
      ++shed_deadline;
      break;
    case shed_reason::peer_bound:
      ++shed_peer_bound;
      break;
    case shed_reason::total_bound:
      ++shed_total_bound;
      break;
    }
  }

  void serve() {
    using namespace std::chrono;
    while (!stopping) {
      // Wakes for the next deadline, and at least every 100 ms for stop().
      auto wait = milliseconds(100);
      if (const auto next = table->next_deadline())
        wait = std::clamp(duration_cast<milliseconds>(*next - http_connection_table::clock::now())
                            + milliseconds(1),
                          milliseconds(0), wait);
      if (MHD_run_wait(daemon, int32_t(wait.count())) != MHD_YES)
        std::this_thread::sleep_for(std::max(wait, milliseconds(10))); // not a busy loop
      for (const auto& s : table->expired(http_connection_table::clock::now()))
        shed(s);
      open = table->open();
    }
  }

  dashboard_options options;
  dashboard_content content;
  std::map<std::string, added_route> added;
  MHD_Daemon* daemon = nullptr;
  std::thread thread;
  std::atomic<int> port{0};
  std::atomic<bool> stopping{false};
  bool started = false;
  std::size_t max_connections = 0;

  // The event thread's own (callbacks included).
  std::optional<http_connection_table> table;
  std::unordered_map<connection_id, int> sockets;
  socket_owner_lookup owners;
  connection_id last_id = 0;

  // Read by stats() from any thread.
  std::atomic<std::size_t> open{0}, accepted{0}, shed_deadline{0}, shed_peer_bound{0},
    shed_total_bound{0};
};

dashboard_server::dashboard_server(std::shared_ptr<const message_pool> pool,
                                   dashboard_options options)
  : impl_(std::make_unique<impl>(std::move(pool), std::move(options))) {}

dashboard_server::~dashboard_server() {
  stop();
}

caf::expected<void> dashboard_server::add_get(const std::string& path,
                                              const std::string& content_type,
                                              std::function<std::string()> body) {
  if (impl_->started)
    return caf::make_error(ec::bad_input, "cannot add route " + path
                                            + ": the dashboard is already serving");
  if (path.empty() || path.front() != '/')
    return caf::make_error(ec::bad_input, "cannot add route '" + path
                                            + "': a path starts with '/'");
  impl_->added[path] = impl::added_route{content_type, std::move(body)};
  return {};
}

caf::expected<void> dashboard_server::start() {
  auto& d = *impl_;
  const auto address = d.options.host + ":" + std::to_string(d.options.port);
  if (d.started)
    return caf::make_error(ec::bad_input, "the dashboard on " + address + " was already started");
  std::string why;
  const int listening = listen_on(d.options.host, d.options.port, why);
  if (listening < 0)
    return caf::make_error(caf::sec::cannot_open_port,
                           "the dashboard cannot listen on " + address + ": " + why);
  const auto* fd = &listening;
  sockaddr_storage bound{};
  socklen_t size = sizeof bound;
  ::getsockname(*fd, reinterpret_cast<sockaddr*>(&bound), &size);
  const int port = ntohs(bound.ss_family == AF_INET6
                           ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                           : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  d.max_connections = connections_that_fit(d.options.max_connections);
  http_connection_limits limits;
  limits.request_deadline = d.options.request_deadline;
  limits.answer_deadline = d.options.answer_deadline;
  limits.total = d.max_connections;
  limits.per_peer = std::min(d.options.max_connections_per_peer, d.max_connections);
  d.table.emplace(limits, http_peer::local_user(uint32_t(::geteuid())));
  // libmicrohttpd's own cap stays above the table's, so that a connection
  // past the bound is accepted and sheds an older one instead of waiting.
  const unsigned hard_cap = unsigned(d.max_connections + 64);
  d.daemon = MHD_start_daemon(
    MHD_USE_EPOLL, 0, nullptr, nullptr, &impl::on_request, &d,
    MHD_OPTION_LISTEN_SOCKET, MHD_socket(*fd),
    MHD_OPTION_CONNECTION_LIMIT, hard_cap,
    MHD_OPTION_CONNECTION_TIMEOUT, unsigned(d.options.idle_timeout.count()),
    MHD_OPTION_CONNECTION_MEMORY_LIMIT, size_t(d.options.max_request_bytes),
    MHD_OPTION_NOTIFY_CONNECTION, &impl::on_connection, &d,
    MHD_OPTION_NOTIFY_COMPLETED, &impl::on_completed, &d,
    MHD_OPTION_END);
  if (d.daemon == nullptr) {
    ::close(*fd);
    return caf::make_error(caf::sec::cannot_open_port,
                           "the dashboard cannot serve on " + address
                             + ": libmicrohttpd did not start (epoll)");
  }
  d.started = true;
  d.port = port;
  d.thread = std::thread([&d] { d.serve(); });
  return {};
}

int dashboard_server::port() const {
  return impl_->port;
}

dashboard_connection_stats dashboard_server::stats() const {
  const auto& d = *impl_;
  return {d.open, d.accepted, d.shed_deadline, d.shed_peer_bound, d.shed_total_bound,
          d.max_connections};
}

void dashboard_server::stop() {
  auto& d = *impl_;
  if (!d.thread.joinable())
    return;
  d.stopping = true;
  d.thread.join();
  // Closes every connection (their callbacks run here) and the listening
  // socket.
  MHD_stop_daemon(d.daemon);
  d.daemon = nullptr;
}

} // namespace paratune
