#pragma once

#include <cstdint>

namespace paratune {

/// What training a job's whole token budget costs at a measured pace
/// (OptiCo section 3.5: a tuned configuration is worth the GPU-hours it
/// saves over the full run, not the trial's TFLOP/s).
struct full_run_cost {
  double iterations = 0;  ///< global batches to see every token
  double days = 0;        ///< wall clock
  double gpu_hours = 0;   ///< wall clock x devices
};

/// `tokens` at `iteration_ms` per global batch of `gbs` sequences of `seq`
/// tokens on `devices` devices. Zero everywhere when any input is not
/// positive (nothing measured, no budget given).
full_run_cost cost_of_training(double tokens, int64_t gbs, int64_t seq, double iteration_ms,
                               int64_t devices);

} // namespace paratune
