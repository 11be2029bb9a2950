#pragma once

#include <vector>

namespace paratune {

/// One logged iteration as the scorer needs it.
struct iteration_sample {
  long long iteration = 0;
  double elapsed_ms = 0;
  double tflops_per_gpu = 0; ///< 0 when the log does not print it
};

/// A trial's throughput from its iterations, warm-up excluded.
struct trial_score {
  int scored = 0;             ///< iterations that counted
  double iteration_ms = 0;    ///< median elapsed time of those
  double tflops_per_gpu = 0;  ///< median TFLOP/s/GPU of those
};

/// Drops the first `warmup` iterations (CUDA graphs, NCCL rings, allocator
/// pools are built there: the first can be many times slower) and any later
/// iteration slower than 1.5x the median of the rest, then takes medians.
trial_score score_iterations(const std::vector<iteration_sample>& samples, int warmup = 2);

} // namespace paratune
