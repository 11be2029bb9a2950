#pragma once

#include <string>
#include <string_view>

#include "core/replay/measured_landscape.hpp"

namespace paratune {

/// What a team's sweep table is measured on: the job's model, GPU count and
/// starting configuration (keys the table has no column for keep its values).
struct sweep_context {
  model_spec model;
  int gpus = 0;
  training_config base;
};

/// Reads a team's own past sweep: a CSV whose header names configuration
/// keys (canonical keys: tp, pp, mbs, gbs, seq, recompute, ...) and
/// `iteration_ms`, optionally `tflops_per_gpu`, `peak_memory_mib` and
/// `status` (succeeded, ok, failed, oom; empty means succeeded). A failed
/// row needs no time. Without `tflops_per_gpu`, it is derived from the time
/// (measured_tflops_per_gpu). The landscape is named after the model, GPU
/// count and the first row's global batch. A configuration measured twice
/// keeps the mean time. Throws input_error "SOURCE: line N: ..." for a
/// column that is neither a key nor one of these, a bad value, or a row
/// with neither a time nor a failure.
measured_landscape parse_sweep_table(std::string_view text, const std::string& source,
                                     const sweep_context& on);

} // namespace paratune
