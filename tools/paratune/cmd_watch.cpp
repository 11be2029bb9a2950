// paratune watch SESSION: a session's progress as `tune` prints it, live,
// from a daemon: each trial as it ends, then the session's summary.
//
// The bus says when something happened; the pool, read in pages through the
// control endpoint, says what. A message the bus dropped is never missed,
// and a watch started late prints the trials that ended before it.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>

#include <CLI/CLI.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/codec.hpp"
#include "report/session_summary.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"
#include "core/human_units.hpp"
#include "report/tpu_report.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct watch_options {
  std::string session;
  bool json = false;
  daemon_client_options daemon;
};

/// Wakes the reader when the bus carries news of the session.
struct wakeup {
  std::mutex mutex;
  std::condition_variable cv;
  bool poked = false;

  void poke() {
    std::lock_guard<std::mutex> guard{mutex};
    poked = true;
    cv.notify_one();
  }
  void wait(std::chrono::milliseconds at_most) {
    std::unique_lock<std::mutex> lock{mutex};
    cv.wait_for(lock, at_most, [this] { return poked; });
    poked = false;
  }
};

/// A cancelled session's end is stored before the results of the trials it
/// stops (the validator ends them once it reads that end): the watch waits
/// this long for those results before it prints the summary.
constexpr std::chrono::seconds stopped_results_wait{30};

/// What the watch has read: the records (for the summary) and their ledger.
struct watch_view {
  const watch_options& o;
  std::vector<wire::envelope> records;
  session_ledger ledger{o.session}; ///< each trial's proposal and result, the skips, the end

  /// Trials the session started that have no result yet: after its end,
  /// those being stopped.
  bool trials_unended() const {
    for (const auto* t : ledger.in_flight())
      if (t->started)
        return true;
    return false;
  }

  const std::optional<wire::session_status>& end() const { return ledger.end(); }

  void take(const wire::envelope& e) {
    records.push_back(e);
    ledger.apply(e);
    if (e.type == wire::type_name<wire::tpu_trial_row>())
      return print_tpu_run(wire::body_of<wire::tpu_trial_row>(e));
    // A TPU run is shown by its row, which holds its diagnosis too.
    if (e.type != wire::type_name<wire::trial_result>() || ledger.tpu_job())
      return;
    const auto r = wire::body_of<wire::trial_result>(e);
    const auto* t = ledger.trial(r.trial);
    const auto row = row_of(r, t && t->proposal ? &*t->proposal : nullptr);
    if (o.json)
      print_line({{"event", "trial"},
                  {"trial", r.trial},
                  {"status", to_string(r.status)},
                  {"tflops_per_gpu", r.tflops_per_gpu},
                  {"mfu", r.mfu},
                  {"pool", r.pool},
                  {"change", row.change},
                  {"reason", row.reason}});
    else
      std::cout << render_trial_line(row, trial_count_of(ledger, 0)) << std::flush;
  }

  /// A TPU session's run, once it ended.
  void print_tpu_run(const wire::tpu_trial_row& r) const {
    if (r.ended_ms == 0)
      return;
    if (o.json) {
      print_line({{"event", "trial"},       {"trial", r.trial},   {"mesh", r.mesh},
                  {"step_time_ms", r.step_time_ms}, {"error", r.error}, {"stopped", r.stopped},
                  {"bottleneck", r.bottleneck}, {"pool", r.pool},  {"retry_of", r.retry_of}});
      return;
    }
    std::string what = !r.error.empty()     ? "failed: " + r.error
                       : !r.stopped.empty() ? human_duration(r.step_time_ms) + ", stopped: "
                                                + r.stopped
                                            : human_duration(r.step_time_ms) + "  " + r.bottleneck;
    std::printf("trial %2d  %-34s %s%s\n", r.trial, r.mesh.c_str(), what.substr(0, 110).c_str(),
                r.retry_of > 0 ? (" (a retry of trial " + std::to_string(r.retry_of) + ")").c_str()
                               : "");
    std::fflush(stdout);
  }

  static void print_line(const nlohmann::json& j) { std::cout << j.dump() << std::endl; }
};

int run_watch(const watch_options& o) {
  control::request health;
  health.op = control::to_string(control::control_op::health);
  int status = 0;
  auto h = o.daemon.call(health, status);
  if (!h)
    return status;
  control::request known;
  known.op = control::to_string(control::control_op::status);
  known.session = o.session;
  if (!o.daemon.call(known, status))
    return status; // no such session: the daemon said so
  wakeup news;
  zmq::context_t ctx{1};
  std::unique_ptr<bus_subscriber> bus;
  try {
    bus = std::make_unique<bus_subscriber>(ctx, bus_endpoints{"", h->bus_subscribe});
    for (const auto& prefix : {"trial." + o.session + ".", "session." + o.session + "."})
      bus->subscribe(prefix, [&news](const std::string&, const std::string&) { news.poke(); });
  } catch (const std::exception& e) {
    // Without the bus the watch still works, a second slower.
    std::cerr << "warning: no bus at " << h->bus_subscribe << " (" << e.what()
              << "): reading the pool every second\n";
  }
  watch_view view{o, {}};
  control::request page;
  page.op = control::to_string(control::control_op::history);
  page.session = o.session;
  // After the end: until the stopped trials' results are in, or the wait is over.
  std::optional<std::chrono::steady_clock::time_point> settle_by;
  for (;;) {
    auto reply = o.daemon.call(page, status);
    if (!reply)
      return status;
    for (const auto& e : reply->records)
      view.take(e);
    page.after_seq = reply->last_seq;
    if (reply->more)
      continue;
    if (const auto& end = view.end()) {
      // Only a cancel leaves trials to be stopped after the end is stored.
      if (end->state != session_state::cancelled || !view.trials_unended())
        break;
      if (!settle_by)
        settle_by = std::chrono::steady_clock::now() + stopped_results_wait;
      if (std::chrono::steady_clock::now() >= *settle_by)
        break;
    }
    news.wait(std::chrono::seconds(1));
  }
  if (view.ledger.tpu_job()) {
    const auto end = view.ledger.tpu_progress();
    const auto report = end ? tpu_report_json(o.session, *end) : nlohmann::json::object();
    if (o.json)
      watch_view::print_line({{"event", "end"}, {"state", to_string(view.end()->state)},
                              {"text", view.end()->text}, {"report", report}});
    else if (const auto line = tpu_best_line(report); !line.empty())
      std::printf("%s\n", line.c_str());
    else
      std::printf("session %s ended %s: no run was measured\n", o.session.c_str(),
                  to_string(view.end()->state));
    return view.end()->state == session_state::failed ? 1 : 0;
  }
  const auto summary = summarize(o.session, view.records);
  if (o.json)
    watch_view::print_line({{"event", "end"}, {"state", to_string(view.end()->state)},
                            {"text", view.end()->text}, {"summary", to_json(summary)}});
  else
    std::cout << render_text(summary);
  return view.end()->state == session_state::failed ? 1 : 0;
}

command_action setup_watch(CLI::App& app) {
  auto o = std::make_shared<watch_options>();
  app.add_option("session", o->session, "the session's id")->required();
  app.add_flag("--json", o->json,
               "print one JSON object per line: each trial as it ends, then the end");
  o->daemon.add_to(app);
  return [o] { return run_watch(*o); };
}

registrar watch_command{{"watch", "follow a daemon's session live, as tune prints it", setup_watch}};

} // namespace

} // namespace paratune::cli
