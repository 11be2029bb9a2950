// bench_control_latency: how long a daemon takes to answer control requests
// while it runs many sessions. Starts a real `paratune daemon` (a child
// process), submits N sessions whose trials run long on the simulated
// cluster, waits until every one has a trial running, then times requests
// from one client: health, list, status of a session and a page of a
// session's history, in turn. Prints each operation's p50, p90, p99 and
// max, and all of them together.
//
// --flood N: N more clients submit 1 MiB job files without pause while the
// requests are timed (the daemon must answer list and the rest beside
// them). --big-message: before the timing, one client sends a 26-frame
// message of 4 MiB frames; the daemon's RSS before, at its peak and after
// the refusal is printed. --idle-http N: the daemon serves HTTP too; N
// connections are opened and left idle, then /health is timed 50 times.

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <httplib.h>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/daemon_harness/bench_daemon.hpp"
#include "daemon/control_client.hpp"
#include "messages/ec.hpp"

namespace {

using namespace paratune;
using control::control_op;

struct options {
  std::string paratune = "build/bin/paratune";
  int sessions = 50;
  int requests = 4000;
  int flood = 0;
  bool big_message = false;
  int idle_http = 0;
};

/// Opens `n` TCP connections to 127.0.0.1:port that never send a request,
/// then times 50 GETs of /health beside them.
void idle_http(int port, int n) {
  std::vector<int> idle;
  for (int i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0)
      idle.push_back(fd);
    else
      ::close(fd);
  }
  std::vector<double> ms;
  int answered = 0;
  for (int i = 0; i < 50; ++i) {
    httplib::Client http{"127.0.0.1", port};
    http.set_read_timeout(10);
    const auto t0 = std::chrono::steady_clock::now();
    const auto res = http.Get("/health");
    ms.push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    answered += res && res->status == 200;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("/health beside %zu idle connections: %d/50 answered, p50 %.2f ms, max %.2f ms\n",
              idle.size(), answered, ms[ms.size() / 2], ms.back());
  for (int fd : idle)
    ::close(fd);
}

/// A job file of about 1 MiB that the daemon must parse before it can
/// refuse it (2^16 keys it does not know).
std::string flood_job() {
  std::string text = "name: flood\nmodel: llama3-8b\ncluster: dgx-a100-80g\n";
  for (int i = 0; text.size() < (1u << 20) - 32; ++i)
    text += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  return text;
}

/// VmRSS and VmHWM of `pid`, in MiB.
std::pair<double, double> rss_mib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  double rss = 0, hwm = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0)
      rss = std::stod(line.substr(6)) / 1024;
    if (line.rfind("VmHWM:", 0) == 0)
      hwm = std::stod(line.substr(6)) / 1024;
  }
  return {rss, hwm};
}

/// Sends one message of 26 frames of 4 MiB each (a 104 MiB request) and
/// waits for the refusal; prints the daemon's memory around it.
void big_message(const std::string& endpoint, int pid) {
  const auto before = rss_mib(pid);
  zmq::context_t ctx{1};
  zmq::socket_t dealer{ctx, zmq::socket_type::dealer};
  dealer.set(zmq::sockopt::linger, 0);
  dealer.set(zmq::sockopt::rcvtimeo, 60000);
  dealer.connect(endpoint);
  std::vector<zmq::message_t> frames;
  for (int i = 0; i < 26; ++i)
    frames.emplace_back(std::string((4u << 20) - 16, 'x'));
  zmq::send_multipart(dealer, frames);
  std::vector<zmq::message_t> reply;
  const bool answered = zmq::recv_multipart(dealer, std::back_inserter(reply)).has_value();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto after = rss_mib(pid);
  std::printf("big message: 26 x 4 MiB; %s; daemon RSS %.1f MiB before, %.1f MiB after "
              "(peak %.1f MiB)\n",
              answered ? "refused" : "no answer", before.first, after.first, after.second);
}

std::string job_text(int seed) {
  // ~25 s per trial: every session keeps a trial running while it is timed.
  return "name: latency-" + std::to_string(seed) + "\nmodel: llama3-8b\ncluster: dgx-a100-80g\n"
         "nodes: 1\nprecision: fp16\n"
         "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
         "trials: 20\nsimulation: {seed: " + std::to_string(seed)
         + ", train_iters: 12, time_scale: 0.02}\n";
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

control::request request_of(control_op op, const std::string& session = {}) {
  return bench::control_request(op, session);
}

} // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{"control-request latency of a daemon running many sessions"};
  app.add_option("--paratune", o.paratune, "the paratune executable");
  app.add_option("--sessions", o.sessions, "active sessions");
  app.add_option("--requests", o.requests, "requests timed");
  app.add_option("--flood", o.flood, "clients submitting 1 MiB jobs while requests are timed");
  app.add_flag("--big-message", o.big_message, "send one 104 MiB request first");
  app.add_option("--idle-http", o.idle_http, "idle HTTP connections beside /health");
  CLI11_PARSE(app, argc, argv);
  const auto state = std::filesystem::temp_directory_path() / "bench-control-latency";
  std::filesystem::remove_all(state);
  std::unique_ptr<child_process> daemon;
  int http_port = 0;
  const auto endpoint = bench::start_bench_daemon(daemon, o.paratune, state.string(), http_port);
  if (endpoint.empty())
    return 1;
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
  if (o.big_message)
    big_message(endpoint, daemon->pid());
  if (o.idle_http > 0)
    idle_http(http_port, o.idle_http);
  std::atomic<bool> flooding{true};
  std::atomic<int> flooded{0};
  std::vector<std::thread> flood;
  for (int i = 0; i < o.flood; ++i)
    flood.emplace_back([&] {
      control_client c{endpoint, std::chrono::seconds(60)};
      auto r = request_of(control_op::submit);
      r.job_yaml = flood_job();
      while (flooding) {
        (void)c.call(r);
        ++flooded;
      }
    });
  std::map<std::string, std::vector<double>> ms;
  std::vector<double> all;
  bool failed = false;
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
      std::fprintf(stderr, "%s failed: %s\n", control::to_string(op),
                   reply ? reply->error.c_str() : describe(reply.error()).c_str());
      failed = true;
      break;
    }
    ms[control::to_string(op)].push_back(t);
    all.push_back(t);
  }
  flooding = false;
  for (auto& t : flood)
    t.join();
  if (failed) {
    ::kill(daemon->pid(), SIGTERM);
    return 1;
  }
  if (o.flood > 0)
    std::printf("%d flooding clients: %d submits of 1 MiB answered while timing\n", o.flood,
                flooded.load());
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
  bench::stop_bench_daemon(*daemon);
  std::filesystem::remove_all(state);
  return 0;
}
