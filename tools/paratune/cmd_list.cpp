// paratune list: the daemon's sessions, newest first.

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct list_options {
  bool json = false;
  daemon_client_options daemon;
};

nlohmann::json row_json(const control::session_row& r) {
  return {{"id", r.id},
          {"state", r.state},
          {"job", r.job_name},
          {"model", r.model},
          {"cluster", r.cluster},
          {"trials_done", r.trials_done},
          {"trials_budget", r.trials_budget},
          {"running", r.running},
          {"best_trial", r.best_trial},
          {"best_tflops_per_gpu", r.best_tflops},
          {"opened_at_ms", r.opened_ms},
          {"text", r.text}};
}

void print_table(const std::vector<control::session_row>& rows) {
  std::printf("%-26s %-10s %7s %4s %18s  %s\n", "SESSION", "STATE", "TRIALS", "RUN",
              "BEST TFLOP/s/GPU", "JOB");
  for (const auto& r : rows) {
    const auto trials = std::to_string(r.trials_done) + "/" + std::to_string(r.trials_budget);
    char best[32] = "-";
    if (r.best_trial > 0)
      std::snprintf(best, sizeof best, "%.1f (trial %d)", r.best_tflops, r.best_trial);
    std::printf("%-26s %-10s %7s %4d %18s  %s (%s on %s)\n", r.id.c_str(), r.state.c_str(),
                trials.c_str(), r.running, best, r.job_name.c_str(), r.model.c_str(),
                r.cluster.c_str());
  }
}

int run_list(const list_options& o) {
  control::request r;
  r.op = control::to_string(control::control_op::list);
  int status = 0;
  auto reply = o.daemon.call(r, status);
  if (!reply)
    return status;
  if (o.json) {
    auto rows = nlohmann::json::array();
    for (const auto& s : reply->sessions)
      rows.push_back(row_json(s));
    print_json({{"sessions", rows}});
  } else {
    print_table(reply->sessions);
  }
  return 0;
}

command_action setup_list(CLI::App& app) {
  auto o = std::make_shared<list_options>();
  app.add_flag("--json", o->json, "print {\"sessions\": [...]} instead of a table");
  o->daemon.add_to(app);
  return [o] { return run_list(*o); };
}

registrar list_command{{"list", "list the daemon's sessions, newest first", setup_list}};

} // namespace

} // namespace paratune::cli
