#include "ledger/tpu_runs.hpp"

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

} // namespace paratune
