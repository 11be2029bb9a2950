#pragma once

#include <optional>
#include <vector>

#include "adapters/maxtext/maxtext_log.hpp"

namespace paratune {

/// Sets each step's phase: a run's first step (step 0, or the first after
/// a restart's lower step number) is compilation; a step whose time is
/// under half the median of its run's other timed steps was timed before
/// the device finished (asynchronous dispatch: its TFLOP/s is more than
/// twice the run's); so is one above `peak_tflops_per_device` when the
/// device is known. Ramp-up and profiler-boundary steps keep their phase.
/// Everything else is measured.
void score_steps(std::vector<maxtext_step>& steps,
                 std::optional<double> peak_tflops_per_device = std::nullopt);

/// The scored steps' means: what a trial's throughput is.
struct maxtext_score {
  int scored = 0;
  double step_ms = 0;
  double tflops_per_device = 0;       ///< 0 when no scored step printed it
  double tokens_per_s_per_device = 0;  ///< 0 when no scored step printed it
};

maxtext_score score_of(const std::vector<maxtext_step>& steps);

} // namespace paratune
