#include "tools/paratune/session_rows_view.hpp"

#include <cstdio>
#include <string>

namespace paratune::cli {

namespace {

nlohmann::json session_row_json(const control::session_row& r) {
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

} // namespace

nlohmann::json session_rows_json(const std::vector<control::session_row>& rows) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows)
    out.push_back(session_row_json(r));
  return {{"sessions", out}};
}

void print_session_table(const std::vector<control::session_row>& rows) {
  std::printf("%-26s %-10s %7s %4s %18s  %s\n", "SESSION", "STATE", "TRIALS", "RUN",
              "BEST TFLOP/s/GPU", "JOB");
  for (const auto& r : rows) {
    const auto trials = std::to_string(r.trials_done) + "/" + std::to_string(r.trials_budget);
    char best[32] = "-";
    // A TPU session's best run is its fastest step, not TFLOP/s per GPU.
    if (r.best_trial > 0 && r.best_tflops > 0)
      std::snprintf(best, sizeof best, "%.1f (trial %d)", r.best_tflops, r.best_trial);
    else if (r.best_trial > 0)
      std::snprintf(best, sizeof best, "- (trial %d)", r.best_trial);
    std::printf("%-26s %-10s %7s %4d %18s  %s (%s on %s)\n", r.id.c_str(), r.state.c_str(),
                trials.c_str(), r.running, best, r.job_name.c_str(), r.model.c_str(),
                r.cluster.c_str());
  }
}

} // namespace paratune::cli
