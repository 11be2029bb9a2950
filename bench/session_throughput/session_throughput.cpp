// bench_session_throughput: trials finished per minute across the sessions
// of one daemon, against the number of sessions. For each count N it starts
// a real `paratune daemon` (a child process, fresh state), submits N
// sessions of short simulated trials (Llama3-8B on one DGX A100 node, a
// seed per session), waits until every session has done `--steady-after`
// trials (its first analysis walks the search space; the later ones reuse
// the walk) or `--warmup` seconds passed, then counts the
// trials `list` reports done over `--window` seconds (cut short when a
// session ends: the count is of sessions all still tuning). Every `list`
// in the window is timed; with N = `--list-at` one more `list` every 200 ms.
// Prints a markdown table (N, trials per minute, per session, the ratio of
// per-session throughput to the previous count's, list p50/p99/max, the
// daemon's CPU), and with --svg writes the plot docs/benchmarks.md shows.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "bench/daemon_harness/bench_daemon.hpp"
#include "daemon/control_client.hpp"
#include "messages/ec.hpp"
#include "report/svg_canvas.hpp"

namespace {

using namespace paratune;
using control::control_op;
using steady = std::chrono::steady_clock;

struct options {
  std::string paratune = "build/bin/paratune";
  std::vector<int> sessions{10, 25, 50, 100, 200, 400};
  int trials = 40;
  double time_scale = 0.0005;
  double warmup_s = 120;
  int steady_after = 3;
  double window_s = 20;
  int list_at = 200;
  std::string svg;
};

struct run_result {
  int sessions = 0;
  double trials_per_min = 0;
  double window_s = 0;
  double warmup_s = 0;     ///< from the last submit until counting began
  int trials = 0;
  std::vector<double> list_ms;
  double daemon_cores = 0; ///< the daemon's CPU time over the window, in cores
  bool cut_short = false;  ///< a session ended inside the window
};

std::string throughput_job(int seed, const options& o) {
  return fmt::format("name: throughput-{}\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
                     "precision: fp16\n"
                     "initial: {{tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}}\n"
                     "trials: {}\nsimulation: {{seed: {}, train_iters: 8, time_scale: {}}}\n"
                     // The whole budget: what is measured is the daemon's rate,
                     // not how soon a session's answer is known (issue 25).
                     "stop: budget\n",
                     seed, o.trials, seed, o.time_scale);
}

/// The daemon's user and system CPU time so far, in seconds (itself, not
/// its children: the trials' simulators are apart).
double cpu_seconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos)
    return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {
    if (i == 14)
      utime = std::stod(field);
    if (i == 15) {
      stime = std::stod(field);
      break;
    }
  }
  return (utime + stime) / double(::sysconf(_SC_CLK_TCK));
}

double seconds_since(steady::time_point t0) {
  return std::chrono::duration<double>(steady::now() - t0).count();
}

double percentile(std::vector<double> v, double q) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

struct list_sample {
  int done = 0;
  int ended = 0;
  int fewest = 0; ///< the fewest trials any session has done
  double ms = 0;
};

/// One timed `list`: the trials done over every session, and how many ended.
std::optional<list_sample> timed_list(control_client& client) {
  const auto t0 = steady::now();
  const auto reply = client.call(bench::control_request(control_op::list));
  list_sample s;
  s.ms = seconds_since(t0) * 1000;
  if (!reply || !reply->ok)
    return std::nullopt;
  s.fewest = reply->sessions.empty() ? 0 : reply->sessions.front().trials_done;
  for (const auto& row : reply->sessions) {
    s.done += row.trials_done;
    s.fewest = std::min(s.fewest, row.trials_done);
    s.ended += row.state != "running" && row.state != "paused";
  }
  return s;
}

/// Waits until every session has done `o.steady_after` trials (or one
/// ended), at most `o.warmup_s` seconds after `since`.
void out_of_warmup(control_client& client, const options& o, steady::time_point since) {
  while (seconds_since(since) < o.warmup_s) {
    const auto s = timed_list(client);
    if (s && (s->fewest >= o.steady_after || s->ended > 0))
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

std::optional<run_result> run_sessions(int n, const options& o) {
  const auto state = std::filesystem::temp_directory_path()
                     / ("bench-session-throughput-" + std::to_string(::getpid()));
  std::filesystem::remove_all(state);
  std::unique_ptr<child_process> daemon;
  int http_port = 0;
  const auto endpoint = bench::start_bench_daemon(daemon, o.paratune, state.string(), http_port);
  if (endpoint.empty())
    return std::nullopt;
  control_client client{endpoint, std::chrono::seconds(30)};
  for (int i = 1; i <= n; ++i) {
    auto r = bench::control_request(control_op::submit);
    r.job_yaml = throughput_job(i, o);
    auto reply = client.call(r);
    // The daemon takes at most 50 submits a second from one user.
    while (reply && !reply->ok && reply->error.find("submit again shortly") != std::string::npos) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      reply = client.call(r);
    }
    if (!reply || !reply->ok) {
      std::fprintf(stderr, "submit failed: %s\n",
                   reply ? reply->error.c_str() : describe(reply.error()).c_str());
      bench::stop_bench_daemon(*daemon);
      return std::nullopt;
    }
  }
  // Steady state: every session past its first trials (its first analysis
  // walks the search space, later ones reuse the walk), or `--warmup` at most.
  const auto submitted = steady::now();
  out_of_warmup(client, o, submitted);
  run_result out;
  out.warmup_s = seconds_since(submitted);
  out.sessions = n;
  auto first = timed_list(client);
  const auto t0 = steady::now();
  const double cpu0 = cpu_seconds(daemon->pid());
  auto last = first;
  double last_at = 0;
  const auto cadence = std::chrono::milliseconds(n == o.list_at ? 200 : 1000);
  while (first && last && seconds_since(t0) < o.window_s) {
    std::this_thread::sleep_for(cadence);
    auto s = timed_list(client);
    if (!s)
      break;
    out.list_ms.push_back(s->ms);
    if (s->ended > first->ended) {
      out.cut_short = true; // the rate is of sessions all still tuning
      break;
    }
    last = s;
    last_at = seconds_since(t0);
  }
  const double cpu1 = cpu_seconds(daemon->pid());
  bench::stop_bench_daemon(*daemon);
  std::filesystem::remove_all(state);
  if (!first || !last || last_at <= 0) {
    std::fprintf(stderr, "%d sessions: list failed or no window\n", n);
    return std::nullopt;
  }
  out.window_s = last_at;
  out.trials = last->done - first->done;
  out.trials_per_min = out.trials / last_at * 60;
  out.daemon_cores = (cpu1 - cpu0) / seconds_since(t0);
  return out;
}

/// Trials per minute against sessions, on a log2 axis of sessions; each
/// point labelled with its per-session rate.
std::string throughput_svg(const std::vector<run_result>& runs) {
  chart_frame f;
  f.width = 720;
  f.height = 360;
  double top = 300;
  for (const auto& r : runs)
    top = std::max(top, r.trials_per_min);
  const auto t = nice_ticks(0, top * 1.1, 5);
  const double lo = std::log2(double(runs.front().sessions)) - 0.3;
  const double hi = std::log2(double(runs.back().sessions)) + 0.3;
  const linear_scale x{lo, hi, f.plot_left(), f.plot_right()};
  const linear_scale y{0, t.top, f.plot_bottom(), f.plot_top()};
  std::string out;
  open_svg(out, f, "session-throughput", "Trials finished per minute, one daemon");
  y_axis(out, f, y, t.values, t.decimals, "trials per minute, all sessions");
  x_axis(out, f, x, {}, 0, "sessions (log scale)");
  out += fmt::format("<line class=\"target\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                     "stroke=\"#999\" stroke-dasharray=\"6 4\"/>\n",
                     fixed(f.plot_left()), fixed(y(300)), fixed(f.plot_right()), fixed(y(300)));
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#666\">target at 200 "
                     "sessions: 300</text>\n",
                     fixed(f.plot_left() + 6), fixed(y(300) - 5));
  std::string path;
  for (const auto& r : runs) {
    const double px = x(std::log2(double(r.sessions))), py = y(r.trials_per_min);
    path += fmt::format("{}{},{}", path.empty() ? "M" : " L", fixed(px), fixed(py));
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
                       fixed(px), fixed(f.plot_bottom() + 18), r.sessions);
    out += fmt::format("<circle class=\"point\" data-sessions=\"{}\" data-trials-per-min=\"{}\" "
                       "cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#1f77b4\"/>\n",
                       r.sessions, fixed(r.trials_per_min), fixed(px), fixed(py));
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{} "
                       "({}/session)</text>\n",
                       fixed(px), fixed(py - 10), fixed(r.trials_per_min, 0),
                       fixed(r.trials_per_min / r.sessions, 1));
  }
  out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n",
                     path);
  close_svg(out);
  return out;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{"trials finished per minute across the sessions of one daemon"};
  app.add_option("--paratune", o.paratune, "the paratune executable");
  app.add_option("--sessions", o.sessions, "session counts, one daemon each")->delimiter(',');
  app.add_option("--trials", o.trials, "each session's trial budget");
  app.add_option("--time-scale", o.time_scale, "the simulator's wall seconds per simulated second");
  app.add_option("--warmup", o.warmup_s,
                 "at most this many seconds after the submits before counting");
  app.add_option("--steady-after", o.steady_after,
                 "counting starts once every session has done this many trials");
  app.add_option("--window", o.window_s, "seconds counted");
  app.add_option("--list-at", o.list_at, "the session count at which list is timed every 200 ms");
  app.add_option("--svg", o.svg, "write the plot here");
  CLI11_PARSE(app, argc, argv);
  std::vector<run_result> runs;
  for (int n : o.sessions) {
    auto r = run_sessions(n, o);
    if (!r)
      return 1;
    runs.push_back(*r);
    std::fprintf(stderr, "%d sessions: %.0f trials/min\n", n, r->trials_per_min);
  }
  std::printf("| sessions | trials/min | per session | per session vs. previous | warm-up | "
              "window | list p50 ms | list p99 ms | list max ms (n) | daemon CPU (cores) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const double per = r.trials_per_min / r.sessions;
    std::string ratio = "-";
    if (i > 0)
      ratio = fmt::format("x{:.2f} (sessions x{:.1f})",
                          per / (runs[i - 1].trials_per_min / runs[i - 1].sessions),
                          double(r.sessions) / runs[i - 1].sessions);
    std::printf("| %d | %.0f | %.2f | %s | %.0f s | %.0f s%s | %.1f | %.1f | %.1f (%zu) | %.2f |\n",
                r.sessions, r.trials_per_min, per, ratio.c_str(), r.warmup_s, r.window_s,
                r.cut_short ? " (a session ended)" : "", percentile(r.list_ms, 0.5),
                percentile(r.list_ms, 0.99), percentile(r.list_ms, 1.0), r.list_ms.size(),
                r.daemon_cores);
  }
  if (!o.svg.empty()) {
    std::ofstream svg(o.svg);
    svg << throughput_svg(runs);
    if (!svg) {
      std::fprintf(stderr, "cannot write %s\n", o.svg.c_str());
      return 1;
    }
  }
  return 0;
}
