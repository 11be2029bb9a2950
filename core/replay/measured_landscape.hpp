#pragma once

#include <string>
#include <vector>

#include "core/model_spec.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// One configuration someone ran, and what it measured.
struct measured_run {
  training_config config;
  double iteration_ms = 0;     ///< mean of the table's rows for this configuration
  double tflops_per_gpu = 0;   ///< the table's, or model FLOPs / (time x GPUs)
  double peak_memory_mib = 0;  ///< 0 when the table does not say
  bool failed = false;         ///< the run failed (out of memory, crashed): no time
  int line = 0;                ///< the table line it was first read from (1 = header)
  int repeats = 1;             ///< rows that measured this configuration
};

/// A measured configuration landscape: one model on one GPU count at one
/// global batch, and every configuration measured there. What the replay
/// pool answers trials from, and the bench's measured reality.
struct measured_landscape {
  std::string name;      ///< "vtrain-h1024-l24-a16-s1024-g8-b32"
  model_spec model;      ///< model.name names the model alone: "vtrain-h1024-l24-a16-s1024"
  int gpus = 0;
  int gbs = 0;
  int seq = 0;
  std::vector<measured_run> runs;  ///< in the table's order, one per configuration

  /// The run of configuration `c` (compared whole), or nullptr.
  const measured_run* find(const training_config& c) const;
  /// The fastest run that did not fail, or nullptr when none ran.
  const measured_run* best() const;
};

/// The landscapes of `all` with at least `min_runs` measured configurations,
/// in `all`'s order.
std::vector<const measured_landscape*> landscapes_with_at_least(
    const std::vector<measured_landscape>& all, size_t min_runs);

/// TFLOP/s per GPU of an iteration of `c` that took `iteration_ms` on `gpus`
/// GPUs, counting the model FLOPs as the performance model does
/// (model_flops_noncausal: Megatron <= 0.15's formula, vocabulary padded
/// for TP).
double measured_tflops_per_gpu(const model_spec& m, const training_config& c, int gpus,
                               double iteration_ms);

} // namespace paratune
