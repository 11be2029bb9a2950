#pragma once

// The stopping rule a user adds to an Optuna study, which has none of its
// own (a study runs n_trials): a callback that calls study.stop() once the
// best value has not improved by more than `min_gain` over the last
// `window` trials. Applied to a finished log it keeps the prefix the study
// would have run: the sampler never looks at the trials after its stop.

#include "bench/tuning_quality/trial_runner.hpp"

namespace paratune::bench {

struct plateau_rule {
  int window = 5;         ///< trials without a real improvement before the stop
  double min_gain = 0.01; ///< what counts as an improvement (1%, as paratune's margin)
};

/// The entries of `log` a study under `rule` runs.
inline std::vector<trial_record> plateau_prefix(const std::vector<trial_record>& log,
                                                plateau_rule rule = {}) {
  std::vector<trial_record> out;
  double best = 0;
  int trials = 0, improved_at = 0;
  for (const auto& r : log) {
    out.push_back(r);
    if (r.unavailable)
      continue;
    ++trials;
    const auto& o = r.outcome;
    if (o.status == trial_status::succeeded && o.tflops_per_gpu > best * (1 + rule.min_gain)) {
      best = o.tflops_per_gpu;
      improved_at = trials;
    } else if (o.status == trial_status::succeeded) {
      best = std::max(best, o.tflops_per_gpu);
    }
    if (best > 0 && trials - improved_at >= rule.window)
      break;
  }
  return out;
}

} // namespace paratune::bench
