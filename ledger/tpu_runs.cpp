#include "ledger/tpu_runs.hpp"

#include <algorithm>

namespace paratune {

bool tpu_run_measured(const wire::tpu_trial_row& r) {
  return r.error.empty() && r.step_time_ms > 0;
}

bool tpu_run_complete(const wire::tpu_trial_row& r) {
  return tpu_run_measured(r) && r.stopped.empty();
}

namespace {

template <class Rows, class RowOf>
int fastest_of(const Rows& rows, RowOf row_of) {
  const wire::tpu_trial_row* best = nullptr;
  for (const auto& item : rows) {
    const auto& r = row_of(item);
    if (!tpu_run_complete(r))
      continue;
    if (!best || r.step_time_ms < best->step_time_ms
        || (r.step_time_ms == best->step_time_ms && r.trial < best->trial))
      best = &r;
  }
  return best ? best->trial : 0;
}

} // namespace

int tpu_fastest_run(const std::vector<wire::tpu_trial_row>& rows) {
  return fastest_of(rows, [](const wire::tpu_trial_row& r) -> const auto& { return r; });
}

int tpu_fastest_run(const std::map<int, wire::tpu_trial_row>& rows) {
  return fastest_of(rows, [](const auto& entry) -> const auto& { return entry.second; });
}

wire::session_opened tpu_runner_job(const wire::tpu_session_opened& o) {
  wire::session_opened job;
  job.job_name = o.experiment_name;
  job.framework = tpu_framework_name;
  job.pools = o.pools;
  if (job.pools.empty()) {
    wire::pool_wire simulated;
    simulated.name = "simulated";
    job.pools.push_back(simulated);
  }
  job.early_stop = o.early_stop;
  job.env = o.env;
  job.secret_env = o.secret_env;
  job.world_size = std::max(1, o.chips);
  job.cluster = o.cluster;
  job.trials = o.budget;
  job.job_yaml = o.experiment_yaml;
  job.reasoner = o.reasoner;
  return job;
}

} // namespace paratune
