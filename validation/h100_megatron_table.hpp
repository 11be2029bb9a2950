#pragma once

// paratune's own measurements: Megatron-LM (d98e8a64) training a
// TinyLlama-1.1B-shaped model on one H100 under six configurations
// (data/h100_1gpu/megatron/: each run's command line and whole log). The
// model's iteration time and allocated memory against what the logs say.

#include <string>
#include <vector>

#include "validation/model_validation.hpp"
#include "validation/published_tables.hpp"

namespace paratune {

/// Reads every <label>.cmd with its <label>.log under
/// <data_dir>/h100_1gpu/megatron/, sorted by label. Throws input_error naming
/// the file when a command line cannot be read or a log has no steady
/// iteration or no memory report.
std::vector<h100_megatron_run> read_h100_megatron_runs(const std::string& data_dir);

/// Predicted iteration time and allocated memory on one H100 (unfused
/// attention: the runs used Megatron-LM's local transformer implementation)
/// against the measurements; the fit verdicts, and whether the model ranks
/// the configurations' throughput as measured. Gates are in
/// docs/performance_model.md.
table_validation validate_h100_megatron(const std::vector<h100_megatron_run>& runs);

} // namespace paratune
