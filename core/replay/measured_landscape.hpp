#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/measured_run.hpp"
#include "core/model_spec.hpp"

namespace paratune {

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

/// The search space the runs span: for each configuration key on which
/// they differ, its values in increasing order (as texts: "4", "full").
/// Keys every run shares are left out: they stay at the job's initial
/// value, itself one of the runs.
std::map<std::string, std::vector<std::string>> measured_search_space(
    const std::vector<measured_run>& runs);

/// TFLOP/s per GPU of an iteration of `c` that took `iteration_ms` on `gpus`
/// GPUs, counting the model FLOPs as the performance model does
/// (model_flops_noncausal: Megatron <= 0.15's formula, vocabulary padded
/// for TP).
double measured_tflops_per_gpu(const model_spec& m, const training_config& c, int gpus,
                               double iteration_ms);

} // namespace paratune
