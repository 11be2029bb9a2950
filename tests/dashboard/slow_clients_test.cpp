// Slow and idle clients against a real dashboard on real sockets: a request
// dripped a byte at a time is closed at its total deadline, a peer past its
// bound loses its oldest waiting connections, and /health answers
// meanwhile. The peer of a loopback connection is the user owning the
// client's socket.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include "dashboard/dashboard_server.hpp"
#include "dashboard/socket_owner.hpp"
#include "messages/ec.hpp"
#include "storage/message_pool.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
  return fd;
}

/// A client that opened a connection and sends its request a byte at a time.
struct dripping {
  int fd = -1;
  steady::time_point opened;
  std::optional<steady::time_point> closed; ///< when the server ended it
};

struct slow_clients_test : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("slow-clients");
    auto opened = message_pool::open(dir + "/pool");
    ASSERT_TRUE(opened) << describe(opened.error());
    pool = std::move(*opened);
  }
  void TearDown() override {
    for (auto& c : clients)
      if (c.fd >= 0)
        ::close(c.fd);
    server.reset();
    pool.reset();
    fs::remove_all(dir);
  }

  void start(dashboard_options options) {
    server = std::make_unique<dashboard_server>(pool, std::move(options));
    ASSERT_TRUE(server->add_get("/health", "application/json", [] { return R"({"ok":true})"; }));
    auto started = server->start();
    ASSERT_TRUE(started) << describe(started.error());
  }

  void open_clients(int n) {
    for (int i = 0; i < n; ++i) {
      dripping c{connect_to(server->port()), steady::now(), std::nullopt};
      ASSERT_GE(c.fd, 0) << "connection " << i;
      clients.push_back(c);
    }
  }

  /// Sends each open client's next byte every `every`, notes when the
  /// server closes one, and asks /health every 200 ms, for `how_long`.
  /// Returns the slowest /health answer and the number asked.
  struct probed {
    std::chrono::milliseconds slowest{0};
    size_t asked = 0;
  };
  probed drip(std::chrono::milliseconds every, std::chrono::milliseconds how_long,
              bool probe = true) {
    static const std::string header = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(4000, 'a');
    std::vector<size_t> sent(clients.size(), 0);
    const auto end = steady::now() + how_long;
    auto next_byte = steady::now();
    auto next_probe = steady::now();
    probed out;
    while (steady::now() < end) {
      if (steady::now() >= next_byte) {
        for (size_t i = 0; i < clients.size(); ++i)
          if (!clients[i].closed && ::send(clients[i].fd, &header[sent[i]], 1, MSG_NOSIGNAL) == 1)
            ++sent[i];
        next_byte += every;
      }
      if (probe && steady::now() >= next_probe) {
        const auto asked = steady::now();
        httplib::Client cli("127.0.0.1", server->port());
        cli.set_connection_timeout(5);
        cli.set_read_timeout(5);
        const auto res = cli.Get("/health");
        EXPECT_TRUE(res) << "/health unanswered";
        if (res) {
          EXPECT_EQ(res->body, R"({"ok":true})");
        }
        out.slowest = std::max(out.slowest, std::chrono::duration_cast<std::chrono::milliseconds>(
                                              steady::now() - asked));
        ++out.asked;
        next_probe += 200ms;
      }
      std::vector<pollfd> fds;
      std::vector<size_t> which;
      for (size_t i = 0; i < clients.size(); ++i)
        if (!clients[i].closed) {
          fds.push_back({clients[i].fd, POLLIN | POLLRDHUP, 0});
          which.push_back(i);
        }
      ::poll(fds.data(), fds.size(), 20);
      for (size_t k = 0; k < fds.size(); ++k)
        if (fds[k].revents != 0) {
          char b[256];
          const auto got = ::recv(fds[k].fd, b, sizeof b, 0);
          if (got == 0 || (got < 0 && errno != EAGAIN))
            clients[which[k]].closed = steady::now();
        }
    }
    return out;
  }

  std::string dir;
  std::shared_ptr<message_pool> pool;
  std::unique_ptr<dashboard_server> server;
  std::vector<dripping> clients;
};

TEST_F(slow_clients_test, a_dripped_request_is_closed_at_its_total_deadline_and_health_answers) {
  dashboard_options options;
  options.request_deadline = 2s;        // 10 s in the daemon; short here
  options.max_connections_per_peer = 400; // this test's 300 are one user's
  start(options);
  // 300 clients, more than the 256 threads the old server had, each sending
  // a byte every 500 ms: never idle for the 2 s idle time-out, so only the
  // total deadline ends them.
  open_clients(300);
  const auto health = drip(500ms, 3500ms);
  EXPECT_GE(health.asked, 15u);
  EXPECT_LT(health.slowest, 1000ms);
  std::vector<double> lived;
  for (const auto& c : clients) {
    ASSERT_TRUE(c.closed) << "a dripping client was still open after 3.5 s";
    lived.push_back(std::chrono::duration<double>(*c.closed - c.opened).count());
  }
  std::sort(lived.begin(), lived.end());
  EXPECT_GE(lived.front(), 1.95) << "closed before its deadline";
  EXPECT_LE(lived.back(), 3.0) << "closed late";
  const auto stats = server->stats();
  EXPECT_EQ(stats.shed_deadline, 300u);
  EXPECT_EQ(stats.shed_peer_bound, 0u);
  EXPECT_EQ(stats.accepted, 300u + health.asked);
}

TEST_F(slow_clients_test, past_its_bound_a_peer_loses_its_oldest_waiting_connections) {
  dashboard_options options;
  options.max_connections_per_peer = 50;
  start(options);
  open_clients(100);
  // The probes are the same user's: a probe past the bound sheds the oldest
  // waiting connection, never waits behind them.
  const auto health = drip(500ms, 1000ms);
  EXPECT_GE(health.asked, 4u);
  EXPECT_LT(health.slowest, 1000ms);
  std::this_thread::sleep_for(100ms); // the server sees the last probe's close
  drip(500ms, 100ms, false);          // and its clients see theirs
  // 50 shed by the next 50 clients, one by the first probe; each later
  // probe takes the place the one before left.
  const size_t shed = 51;
  for (size_t i = 0; i < clients.size(); ++i)
    EXPECT_EQ(bool(clients[i].closed), i < shed) << "client " << i;
  const auto stats = server->stats();
  EXPECT_EQ(stats.shed_peer_bound, shed);
  EXPECT_EQ(stats.shed_deadline, 0u);
  EXPECT_EQ(stats.open, 100u - shed);
}

/// What arrives on `fd` until it ends with `end`, or the server closes it,
/// or 3 s pass.
std::string read_until(int fd, const std::string& end) {
  std::string got;
  const auto give_up = steady::now() + 3s;
  while (steady::now() < give_up
         && (got.size() < end.size() || got.compare(got.size() - end.size(), end.size(), end) != 0)) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0)
      continue;
    char b[4096];
    const auto n = ::recv(fd, b, sizeof b, 0);
    if (n <= 0)
      break;
    got.append(b, size_t(n));
  }
  return got;
}

TEST_F(slow_clients_test, a_kept_alive_connection_is_answered_again_then_closed_when_idle) {
  dashboard_options options;
  options.idle_timeout = 1s;
  start(options);
  const int fd = connect_to(server->port());
  ASSERT_GE(fd, 0);
  clients.push_back({fd, steady::now(), std::nullopt});
  const std::string ask = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(::send(fd, ask.data(), ask.size(), MSG_NOSIGNAL), ssize_t(ask.size()));
    const auto answer = read_until(fd, R"({"ok":true})");
    EXPECT_EQ(answer.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << "request " << i + 1 << ": " << answer;
    EXPECT_EQ(answer.find("Connection: close"), std::string::npos) << answer;
  }
  // Then idle: closed by the idle time-out, not kept.
  const auto idle_since = steady::now();
  EXPECT_EQ(read_until(fd, "never"), "");
  const auto idle = std::chrono::duration<double>(steady::now() - idle_since).count();
  EXPECT_GE(idle, 0.9);
  EXPECT_LE(idle, 2.5);
  EXPECT_EQ(server->stats().shed_deadline, 0u);
}

/// A listening socket on the loopback and its port.
std::pair<int, int> listen_loopback() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::listen(fd, 8), 0);
  socklen_t size = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size);
  return {fd, ntohs(addr.sin_port)};
}

/// The uid the lookups give for the client end of `accepted`.
std::pair<std::optional<uid_t>, std::optional<uid_t>> owners_of(int accepted) {
  sockaddr_storage peer{}, local{};
  socklen_t ps = sizeof peer, ls = sizeof local;
  ::getpeername(accepted, reinterpret_cast<sockaddr*>(&peer), &ps);
  ::getsockname(accepted, reinterpret_cast<sockaddr*>(&local), &ls);
  socket_owner_lookup lookup;
  const auto* p = reinterpret_cast<const sockaddr*>(&peer);
  const auto* l = reinterpret_cast<const sockaddr*>(&local);
  EXPECT_TRUE(is_loopback(p));
  return {lookup.owner_of(p, l), socket_owner_from_proc(p, l)};
}

TEST(socket_owner, a_loopback_clients_user_is_the_owner_of_its_socket) {
  const auto [listening, port] = listen_loopback();
  const int client = connect_to(port);
  ASSERT_GE(client, 0);
  const int accepted = ::accept(listening, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  const auto [by_netlink, by_proc] = owners_of(accepted);
  EXPECT_EQ(by_netlink, ::geteuid());
  EXPECT_EQ(by_proc, ::geteuid());
  ::close(client);
  ::close(accepted);
  ::close(listening);
}

TEST(socket_owner, another_users_client_is_told_apart) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "a client as uid 65534 needs root";
  const auto [listening, port] = listen_loopback();
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    // The client, as nobody: connects, says so, waits to be ended.
    if (::setgid(65534) != 0 || ::setuid(65534) != 0)
      ::_exit(2);
    const int fd = connect_to(port);
    const char ok = fd >= 0 ? 'y' : 'n';
    (void)!::write(ready[1], &ok, 1);
    ::pause();
    ::_exit(0);
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  const int accepted = ::accept(listening, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  const auto [by_netlink, by_proc] = owners_of(accepted);
  EXPECT_EQ(by_netlink, uid_t(65534));
  EXPECT_EQ(by_proc, uid_t(65534));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  for (int fd : {accepted, listening, ready[0], ready[1]})
    ::close(fd);
}

} // namespace
} // namespace paratune
