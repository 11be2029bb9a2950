#include "tests/profile/local_xprof_server.hpp"

#include "tests/fixtures/test_paths.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace paratune::test {

namespace {

// Reads the first line the child prints (its port), waiting at most `timeout`.
std::string read_first_line(int fd, std::chrono::milliseconds timeout) {
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (line.find('\n') == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0)
      break;
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0)
      break;
    line.append(buf, static_cast<std::size_t>(n));
  }
  return line;
}

} // namespace

local_xprof_server::local_xprof_server(const std::string& root, const std::string& mode,
                                       double delay_s) {
  int out[2];
  if (pipe(out) != 0)
    throw std::runtime_error("pipe failed");
  std::string script = source_dir() + "/tests/fixtures/xprof_server.py";
  std::string delay = std::to_string(delay_s);
  std::vector<std::string> args = {"python3", script, "--root", root, "--mode", mode,
                                   "--delay", delay};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  int rc = posix_spawnp(&pid_, "python3", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    throw std::runtime_error("cannot start python3 " + script);
  }
  std::string line = read_first_line(out[0], std::chrono::seconds(20));
  close(out[0]);
  try {
    port_ = std::stoi(line);
  } catch (const std::exception&) {
    port_ = 0;
  }
  if (port_ <= 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    throw std::runtime_error("xprof_server.py printed no port (got '" + line + "')");
  }
}

local_xprof_server::~local_xprof_server() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
}

std::string local_xprof_server::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

int unused_loopback_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);  // nothing listens on it now; a connect is refused
  return ntohs(addr.sin_port);
}

} // namespace paratune::test
