#pragma once

#include "core/trial_outcome.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// One configuration someone ran, and what it measured: a row of a replay
/// pool's table (core/replay), the answer the pool gives a trial of it.
struct measured_run {
  training_config config;
  double iteration_ms = 0;     ///< mean of the table's rows for this configuration
  double tflops_per_gpu = 0;   ///< the table's, or model FLOPs / (time x GPUs)
  double peak_memory_mib = 0;  ///< 0 when the table does not say
  /// How the run failed (oom, other), none when it ran: a failed run has no time.
  failure_kind failure = failure_kind::none;
  int line = 0;                ///< the table line it was first read from (1 = header)
  int repeats = 1;             ///< rows that measured this configuration

  bool failed() const { return failure != failure_kind::none; }
};

} // namespace paratune
