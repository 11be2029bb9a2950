#include "tools/paratune/tpu_tune.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "actors/bus_bridge.hpp"
#include "frameworks/framework.hpp"
#include "actors/diagnosis_agents.hpp"
#include "actors/runtime.hpp"
#include "actors/tpu_session.hpp"
#include "core/human_units.hpp"
#include "actors/tuning_session.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/config/executable_paths.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/config/private_dir.hpp"

#include "adapters/diagnosis/experiment_loader.hpp"
#include "adapters/diagnosis/tpu_tuning_loader.hpp"
#include "messages/conversions.hpp"
#include "messages/ec.hpp"
#include "tools/paratune/command_runtime.hpp"
#include "report/tpu_report.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

namespace fs = std::filesystem;

std::string tpu_sim_executable() {
  return sibling_executable("paratune-tpu-sim", "PARATUNE_TPU_SIM");
}

/// The session's options, all but its id and where its runs go
/// (name_session): bad input fails before the pool is opened.
tpu_session_options session_options(const tpu_tune_options& o) {
  tpu_session_options s;
  s.experiment_file = o.experiment_file;
  s.experiment = load_experiment(o.experiment_file); // bad input: exit 2
  s.experiment_yaml = read_text_file(o.experiment_file);
  // An unusable model address or key: exit 2.
  apply_tuning(s, load_tpu_tuning(o.experiment_file), o.trials);
  s.seed = o.seed;
  s.simulator = tpu_sim_executable();
  return s;
}

void name_session(tpu_session_options& s, const tpu_tune_options& o, const std::string& session) {
  s.id = session;
  s.runs_dir = (fs::path(o.db + ".runs") / session).string();
}

// One report row; `best_ms` is the best step time once this trial ran.
void print_trial(const nlohmann::json& t, double best_ms) {
  const auto error = t["error"].get<std::string>();
  const auto next = t["next"].get<std::string>();
  const auto stopped = t["stopped"].get<std::string>();
  const double step_ms = t["step_time_ms"].get<double>();
  std::printf("trial %2d  %-34s ", t["trial"].get<int>(), t["mesh"].get<std::string>().c_str());
  if (!error.empty())
    std::printf("failed: %s\n", error.substr(0, 90).c_str());
  else if (!stopped.empty())
    std::printf("%10s  stopped: %s\n", step_ms > 0 ? human_duration(step_ms).c_str() : "",
                stopped.substr(0, 90).c_str());
  else
    std::printf("%10s  %-15s%s\n", human_duration(step_ms).c_str(),
                t["bottleneck"].get<std::string>().c_str(),
                step_ms <= best_ms ? "  best so far" : "");
  if (const int of = t["retry_of"].get<int>(); of > 0)
    std::printf("          a retry of trial %d on pool %s\n", of,
                t["pool"].get<std::string>().c_str());
  if (!next.empty())
    std::printf("          next: %s\n", next.c_str());
}

void print_text(const nlohmann::json& report, session_state end) {
  std::optional<double> best_ms;
  for (const auto& t : report["trials"]) {
    const double step_ms = t["step_time_ms"].get<double>();
    if (t["error"].get<std::string>().empty() && t["stopped"].get<std::string>().empty()
        && (!best_ms || step_ms < *best_ms))
      best_ms = step_ms;
    print_trial(t, best_ms.value_or(0));
  }
  if (end == session_state::exhausted)
    std::printf("stopped after %zu trials: every proposal of the diagnosed runs was tried\n",
                report["trials"].size());
  if (const auto line = tpu_best_line(report); !line.empty())
    std::printf("%s\n", line.c_str());
  const auto units = framework_named("maxtext")->units();
  std::printf("tuning spent %.2f %.*s\n", report["chip_hours"].get<double>(),
              int(units.device_hours.size()), units.device_hours.data());
}

// Runs the session to its end: the report, or why it failed.
caf::expected<session_end> run_session(caf::actor_system& sys, runtime& rt,
                                       tpu_session_options opts) {
  caf::scoped_actor self{sys};
  // Held until the session ends, so that its own subscriptions to the same
  // prefixes are live before its first diagnose_request (the slow joiner).
  live_subscriptions held{rt.bridge(), self, tpu_session_topics(opts.id),
                          std::chrono::seconds(10)};
  if (!held.live())
    return caf::make_error(ec::bus_failure, "the session's topics never reached the bus");
  // Its first record, as the daemon stores it: what the session runs.
  if (auto stored = rt.append(wire::make_envelope(opts.id, 0, opened_record(opts))); !stored)
    return stored.error();
  auto session = sys.spawn(tpu_session, rt.deps(), &rt.bridge(), std::move(opts),
                           listener_of(self));
  rt.adopt_session(session);
  return await_session(self, session);
}

} // namespace

int run_tpu_tune(const tpu_tune_options& o) {
  auto opts = session_options(o); // bad input: exit 2 before the pool is touched
  // The pool holds every run's output: its owner's alone, as a GPU session's.
  if (const auto warning = prepare_private_dir(o.db, "--db"); !warning.empty())
    std::cerr << "warning: " << warning << '\n';
  const auto& exp = opts.experiment;
  // The validator runs its trials, as it runs every framework's; the
  // diagnosis agents diagnose each measured run.
  command_runtime rt{o.db};
  if (!rt.started())
    return 1;
  const auto claimed = rt.claim_session_id();
  if (!claimed)
    return 1;
  const auto& session = *claimed;
  name_session(opts, o, session);
  auto& sys = rt.system();
  diagnosis_agent_options ao{o.db + ".knowledge", configs_dir() + "/knowledge",
                             configs_dir() + "/optimizations"};
  if (auto started = start_diagnosis_agents(sys, rt.get(), ao); !started) {
    std::cerr << "error: " << describe(started.error()) << '\n';
    return 1;
  }
  if (!o.json)
    std::printf("session %s: %s on %s %s, %s, pool %s\n", session.c_str(),
                exp.model.name.c_str(), exp.cluster.name.c_str(), to_string(exp.slice).c_str(),
                count_of(opts.budget, "trial").c_str(), o.db.c_str());
  const auto end = run_session(sys, rt.get(), std::move(opts));
  if (!end || end->state == session_state::failed) {
    rt->stop();
    std::cerr << "error: " << (end ? end->text : describe(end.error())) << '\n';
    return 1;
  }
  // The session's report is its last record in the pool.
  const auto history = rt->history(session);
  rt->stop();
  const auto stored = history ? tpu_end_of(*history) : std::nullopt;
  if (!stored) {
    std::cerr << "error: session " << session << " ended without its report in the pool"
              << (history ? std::string() : ": " + describe(history.error())) << '\n';
    return 1;
  }
  const auto report = tpu_report_json(session, *stored);
  if (o.json)
    print_json(report);
  else
    print_text(report, end->state);
  return report.contains("best") ? 0 : 1;
}

} // namespace paratune::cli
