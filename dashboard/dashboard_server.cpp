#include "dashboard/dashboard_server.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <deque>
#include <condition_variable>
#include <regex>
#include <thread>

#include <sys/socket.h>

#include <caf/sec.hpp>
#include <httplib.h>

#include "dashboard/dashboard_content.hpp"
#include "dashboard/page_frame.hpp"
#include "messages/ec.hpp"

namespace paratune {

namespace {

// httplib matches a route's path as a regular expression; an added route
// is matched literally.
std::string literal_pattern(const std::string& path) {
  static const std::regex special{R"([.^$|()\[\]{}*+?\\])"};
  return std::regex_replace(path, special, R"(\$&)");
}

void send(httplib::Response& res, const dashboard_answer& a) {
  res.status = a.status;
  res.set_header("Content-Security-Policy", a.policy);
  res.set_content(a.body, a.content_type.c_str());
}

// What every answer carries, the refusals and errors httplib makes itself
// included: no MIME sniffing, no referrer, nothing cached (a live page
// polls), and a policy that runs nothing unless the page set its own.
void secure(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Cache-Control", "no-store");
  if (!res.has_header("Content-Security-Policy"))
    res.set_header("Content-Security-Policy", data_policy());
}

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

bool carries_token(const httplib::Request& req, const std::string& token) {
  const auto auth = req.get_header_value("Authorization");
  if (auth.rfind("Bearer ", 0) == 0 && same_secret(auth.substr(7), token))
    return true;
  return req.has_param("token") && same_secret(req.get_param_value("token"), token);
}

/// httplib's queue for accepted connections: a thread for each, up to
/// `cap` at once, so that idle or slow connections (each waits up to the
/// keep-alive timeout for its request) cannot hold every worker while
/// /health waits behind them, as a fixed pool of 8 did. Beyond the cap
/// connections wait in order.
class connection_threads : public httplib::TaskQueue {
public:
  explicit connection_threads(std::size_t cap) : cap_(std::max<std::size_t>(1, cap)) {}

  void enqueue(std::function<void()> fn) override {
    std::lock_guard<std::mutex> guard{mutex_};
    if (running_ >= cap_) {
      waiting_.push_back(std::move(fn));
      return;
    }
    ++running_;
    std::thread([this, fn = std::move(fn)]() mutable { serve(std::move(fn)); }).detach();
  }

  /// Returns when every connection was served (httplib closes its
  /// listening socket first, so no more come).
  void shutdown() override {
    std::unique_lock<std::mutex> lock{mutex_};
    idle_.wait(lock, [&] { return running_ == 0; });
  }

private:
  void serve(std::function<void()> fn) {
    for (;;) {
      fn();
      std::lock_guard<std::mutex> guard{mutex_};
      if (waiting_.empty()) {
        if (--running_ == 0)
          idle_.notify_all();
        return;
      }
      fn = std::move(waiting_.front());
      waiting_.pop_front();
    }
  }

  const std::size_t cap_;
  std::mutex mutex_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> waiting_;
  std::size_t running_ = 0;
};

} // namespace

struct dashboard_server::impl {
  impl(std::shared_ptr<const message_pool> pool, dashboard_options opts)
    : options(std::move(opts)), content(std::move(pool), options.max_sessions) {}

  void route() {
    server.Get("/", [this](const httplib::Request&, httplib::Response& res) {
      send(res, content.sessions_page());
    });
    server.Get("/api/sessions", [this](const httplib::Request&, httplib::Response& res) {
      send(res, content.sessions_json());
    });
    server.Get(R"(/session/([^/]*))", [this](const httplib::Request& req, httplib::Response& res) {
      send(res, content.session_page(req.matches[1]));
    });
    server.Get(R"(/api/sessions/([^/]*))",
               [this](const httplib::Request& req, httplib::Response& res) {
                 send(res, content.session_json(req.matches[1]));
               });
    server.Get(R"(/api/sessions/([^/]*)/mfu\.svg)",
               [this](const httplib::Request& req, httplib::Response& res) {
                 send(res, content.mfu_chart(req.matches[1]));
               });
    server.Get(R"(/api/sessions/([^/]*)/panels)",
               [this](const httplib::Request& req, httplib::Response& res) {
                 send(res, content.panels(req.matches[1]));
               });
  }

  void guard() {
    // Refused before the body is read, and before any handler runs.
    server.set_pre_routing_handler([token = options.token](const httplib::Request& req,
                                                           httplib::Response& res) {
      if (!token.empty() && !carries_token(req, token)) {
        res.status = 401;
        res.set_header("WWW-Authenticate", "Bearer");
        res.set_content("this dashboard needs its token (Authorization: Bearer TOKEN)\n",
                        "text/plain; charset=utf-8");
        return httplib::Server::HandlerResponse::Handled;
      }
      if (read_only(req.method))
        return httplib::Server::HandlerResponse::Unhandled;
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      res.set_header("Connection", "close"); // its unread body must not be parsed as a request
      res.set_content("method not allowed: the dashboard only reads (GET, HEAD)\n",
                      "text/plain; charset=utf-8");
      return httplib::Server::HandlerResponse::Handled;
    });
    server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.body.empty())
        res.set_content("HTTP " + std::to_string(res.status) + "\n", "text/plain; charset=utf-8");
    });
    server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
        res.status = 500;
        res.set_content("internal error: " + what(error) + "\n", "text/plain; charset=utf-8");
      });
    server.set_post_routing_handler(
      [](const httplib::Request&, httplib::Response& res) { secure(res); });
    // httplib's default is SO_REUSEPORT, which lets a second server bind a
    // port already serving and share its connections; SO_REUSEADDR alone
    // refuses that and still rebinds a port a stopped server left.
    server.set_socket_options([this](int sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      listen_fd = sock;
    });
    // Answers are small and written in pieces; Nagle's algorithm against
    // the client's delayed ACK held each keep-alive answer back ~40 ms.
    server.set_tcp_nodelay(true);
    server.set_payload_max_length(options.max_request_bytes);
    // A client has 2 s to send each part of a request, 1 s between requests
    // on a kept-alive connection.
    server.set_read_timeout(2);
    server.set_write_timeout(5);
    server.set_keep_alive_timeout(1);
    server.set_keep_alive_max_count(100);
    const auto cap = options.max_connections;
    server.new_task_queue = [cap] { return new connection_threads(cap); };
    if (options.on_request)
      server.set_logger([log = options.on_request](const httplib::Request& req,
                                                    const httplib::Response& res) {
        log({req.method, req.path, res.status});
      });
  }

  dashboard_options options;
  dashboard_content content;
  httplib::Server server;
  std::thread thread;
  std::atomic<int> port{0};
  int listen_fd = -1;
  std::atomic<bool> loop_ended{false};
  bool started = false;
};

dashboard_server::dashboard_server(std::shared_ptr<const message_pool> pool,
                                   dashboard_options options)
  : impl_(std::make_unique<impl>(std::move(pool), std::move(options))) {
  impl_->guard();
  impl_->route();
}

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
  impl_->server.Get(literal_pattern(path),
                    [content_type, body = std::move(body)](const httplib::Request&,
                                                           httplib::Response& res) {
                      res.set_content(body(), content_type.c_str());
                    });
  return {};
}

caf::expected<void> dashboard_server::start() {
  auto& d = *impl_;
  const auto address = d.options.host + ":" + std::to_string(d.options.port);
  if (d.started)
    return caf::make_error(ec::bad_input, "the dashboard on " + address + " was already started");
  errno = 0;
  const int bound = d.options.port == 0
                      ? d.server.bind_to_any_port(d.options.host)
                      : (d.server.bind_to_port(d.options.host, d.options.port) ? d.options.port
                                                                                : -1);
  if (bound < 0) {
    const std::string why = errno != 0 ? std::strerror(errno) : "not an address of this host";
    return caf::make_error(caf::sec::cannot_open_port,
                           "the dashboard cannot listen on " + address + ": " + why);
  }
  // httplib listens with a backlog of 5: a burst of connections (200 idle
  // ones) overflowed it, and each connect dropped waited for SYN
  // retransmits, /health's too. Listening again raises it (Linux).
  if (d.listen_fd >= 0)
    ::listen(d.listen_fd, 1024);
  d.started = true;
  d.port = bound;
  d.thread = std::thread([&d] {
    d.server.listen_after_bind();
    d.loop_ended = true;
  });
  // stop() only reaches a server whose loop runs: wait for it.
  while (!d.server.is_running() && !d.loop_ended)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return {};
}

int dashboard_server::port() const {
  return impl_->port;
}

void dashboard_server::stop() {
  auto& d = *impl_;
  if (!d.thread.joinable())
    return;
  d.server.stop();
  d.thread.join();
}

} // namespace paratune
