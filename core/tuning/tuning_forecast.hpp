#pragma once

#include <cstddef>
#include <optional>

#include "core/job_spec.hpp"
#include "core/perf/perf_model.hpp"
#include "core/tuning/space_planner.hpp"

namespace paratune {

/// What `tune --dry-run` tells before anything runs: the job's search space
/// before and after the screen (Megatron-LM's rules, then memory), the
/// plan's best layouts, and what the session is predicted to spend.
struct tuning_forecast {
  std::size_t space_size = 0;  ///< candidates before screening (space_size(job.search))
  plan_result screened;        ///< after screening: rejections, and the best layouts first
  /// Trial 1's prediction when it runs the initial configuration (`start:
  /// initial`); one the memory screen refuses (screen_before_any_run) is a
  /// trial it skips, and costs nothing.
  std::optional<perf_prediction> initial;
  /// Trials to the stop, at most: the budget, or fewer when the screened
  /// space (and the initial) hold fewer configurations. A `stop:` that
  /// converges, or early stopping, may end it sooner.
  int trials = 0;
  /// Those trials' predicted GPU-hours: each runs the job's train_iters
  /// iterations on every device; trial 1 at the initial's predicted
  /// iteration time, the others at the plan's best layouts' in rank order,
  /// and past the last layout at the mean of those shown (the tuner also
  /// tries variants of a layout, whose time is close to its best's).
  double gpu_hours = 0;
};

/// The forecast of `job`, its plan listing `top_k` layouts at least (more
/// when the budget needs them for the cost).
tuning_forecast forecast_tuning(const job_spec& job, std::size_t top_k,
                                const perf_calibration& cal = {});

} // namespace paratune
