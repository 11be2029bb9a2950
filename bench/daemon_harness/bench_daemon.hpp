#pragma once

// A real `paratune daemon` as a child process of a benchmark
// (bench_control_latency, bench_session_throughput): started on TCP
// loopback with a fresh state directory, found by the line that says where
// it listens, stopped with SIGTERM.

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/process/child_process.hpp"
#include "messages/control_wire.hpp"

namespace paratune::bench {

/// Starts `paratune daemon` with its state in `state` and waits (up to 30 s)
/// for the line that says where it listens; the control endpoint, or empty
/// (said on stderr) when it never came. `http_port` gets the dashboard's port.
inline std::string start_bench_daemon(std::unique_ptr<child_process>& p,
                                      const std::string& paratune, const std::string& state,
                                      int& http_port) {
  auto m = std::make_shared<std::mutex>();
  auto control = std::make_shared<std::string>();
  auto port = std::make_shared<int>(0);
  p = std::make_unique<child_process>(
    std::vector<std::string>{paratune, "daemon", "--state", state, "--bus-publish",
                             "tcp://127.0.0.1:*", "--bus-subscribe", "tcp://127.0.0.1:*",
                             "--http", "127.0.0.1:*", "--log-level", "warn", "--max-sessions",
                             "1000", "--relay-ingress", "tcp://127.0.0.1:*"},
    [m, control, port](const std::string& line) {
      const std::string key = "paratune daemon: control ";
      if (line.rfind(key, 0) == 0) {
        std::lock_guard<std::mutex> g{*m};
        const auto http = line.find(", http 127.0.0.1:");
        if (http != std::string::npos)
          *port = std::atoi(line.c_str() + http + 17);
        *control = line.substr(key.size(), line.find(',') - key.size());
      }
    },
    nullptr);
  for (int i = 0; i < 600; ++i) {
    {
      std::lock_guard<std::mutex> g{*m};
      if (!control->empty()) {
        http_port = *port;
        return *control;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::fprintf(stderr, "the daemon did not start\n");
  return {};
}

/// SIGTERM, then waits for the daemon's end (SIGKILL after `grace`).
inline void stop_bench_daemon(child_process& p,
                              std::chrono::seconds grace = std::chrono::seconds(60)) {
  ::kill(p.pid(), SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!p.finished()) {
    if (std::chrono::steady_clock::now() > deadline)
      ::kill(p.pid(), SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

inline control::request control_request(control::control_op op, const std::string& session = {}) {
  control::request r;
  r.op = control::to_string(op);
  r.session = session;
  return r;
}

} // namespace paratune::bench
