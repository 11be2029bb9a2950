// bench_control_latency: how long a daemon takes to answer control requests
// while it runs many sessions. Starts a real `paratune daemon` (a child
// process), submits N sessions whose trials run long on the simulated
// cluster, waits until every one has a trial running, then times requests
// from one client: health, list, status of a session and a page of a
// session's history, in turn. Prints each operation's p50, p90, p99 and
// max, and all of them together.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "adapters/process/child_process.hpp"
#include "daemon/control_client.hpp"
#include "messages/ec.hpp"

namespace {

using namespace paratune;
using control::control_op;

struct options {
  std::string paratune = "build/bin/paratune";
  int sessions = 50;
  int requests = 4000;
};

std::string job_text(int seed) {
  // ~25 s per trial: every session keeps a trial running while it is timed.
  return "name: latency-" + std::to_string(seed) + "\nmodel: llama3-8b\ncluster: dgx-a100-80g\n"
         "nodes: 1\nprecision: fp16\n"
         "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
         "trials: 20\nsimulation: {seed: " + std::to_string(seed)
         + ", train_iters: 12, time_scale: 0.02}\n";
}

/// Starts the daemon and waits for the line that says where it listens.
std::string start_daemon(std::unique_ptr<child_process>& p, const options& o,
                         const std::string& state) {
  std::mutex m;
  std::string control;
  p = std::make_unique<child_process>(
    std::vector<std::string>{o.paratune, "daemon", "--state", state, "--control",
                             "tcp://127.0.0.1:*", "--bus-publish", "tcp://127.0.0.1:*",
                             "--bus-subscribe", "tcp://127.0.0.1:*", "--http", "off",
                             "--log-level", "warn", "--max-sessions", "1000"},
    [&](const std::string& line) {
      const std::string key = "paratune daemon: control ";
      if (line.rfind(key, 0) == 0) {
        std::lock_guard<std::mutex> g{m};
        control = line.substr(key.size(), line.find(',') - key.size());
      }
    },
    nullptr);
  for (int i = 0; i < 600; ++i) {
    {
      std::lock_guard<std::mutex> g{m};
      if (!control.empty())
        return control;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return {};
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

control::request request_of(control_op op, const std::string& session = {}) {
  control::request r;
  r.op = control::to_string(op);
  r.session = session;
  return r;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{"control-request latency of a daemon running many sessions"};
  app.add_option("--paratune", o.paratune, "the paratune executable");
  app.add_option("--sessions", o.sessions, "active sessions");
  app.add_option("--requests", o.requests, "requests timed");
  CLI11_PARSE(app, argc, argv);
  const auto state = std::filesystem::temp_directory_path() / "bench-control-latency";
  std::filesystem::remove_all(state);
  std::unique_ptr<child_process> daemon;
  const auto endpoint = start_daemon(daemon, o, state.string());
  if (endpoint.empty()) {
    std::fprintf(stderr, "the daemon did not start\n");
    return 1;
  }
  control_client client{endpoint, std::chrono::seconds(30)};
  std::vector<std::string> ids;
  for (int i = 1; i <= o.sessions; ++i) {
    auto r = request_of(control_op::submit);
    r.job_yaml = job_text(i);
    auto reply = client.call(r);
    if (!reply || !reply->ok) {
      std::fprintf(stderr, "submit failed: %s\n",
                   reply ? reply->error.c_str() : describe(reply.error()).c_str());
      return 1;
    }
    ids.push_back(reply->session);
  }
  // Every session running a trial.
  for (int running = 0; running < o.sessions;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    running = 0;
    // The reply is held here: a range-for over a member of the call's
    // temporary would read it after its destruction.
    const auto listed = client.call(request_of(control_op::list));
    for (const auto& s : listed->sessions)
      running += s.running > 0;
  }
  std::map<std::string, std::vector<double>> ms;
  std::vector<double> all;
  const control_op ops[] = {control_op::health, control_op::list, control_op::status,
                            control_op::history};
  for (int i = 0; i < o.requests; ++i) {
    const auto op = ops[i % 4];
    auto r = request_of(op, ids[size_t(i) % ids.size()]);
    r.limit = 100;
    const auto t0 = std::chrono::steady_clock::now();
    auto reply = client.call(r);
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!reply || !reply->ok) {
      std::fprintf(stderr, "%s failed\n", control::to_string(op));
      return 1;
    }
    ms[control::to_string(op)].push_back(t);
    all.push_back(t);
  }
  int running = 0;
  const auto listed = client.call(request_of(control_op::list));
  for (const auto& s : listed->sessions)
    running += s.running > 0;
  std::printf("%d sessions, %d running a trial at the end; %d requests\n", o.sessions, running,
              o.requests);
  std::printf("%-8s %8s %8s %8s %8s\n", "op", "p50 ms", "p90 ms", "p99 ms", "max ms");
  for (auto& [op, v] : ms)
    std::printf("%-8s %8.3f %8.3f %8.3f %8.3f\n", op.c_str(), percentile(v, 0.5),
                percentile(v, 0.9), percentile(v, 0.99), percentile(v, 1.0));
  std::printf("%-8s %8.3f %8.3f %8.3f %8.3f\n", "all", percentile(all, 0.5), percentile(all, 0.9),
              percentile(all, 0.99), percentile(all, 1.0));
  ::kill(daemon->pid(), SIGTERM);
  while (!daemon->finished())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::filesystem::remove_all(state);
  return 0;
}
