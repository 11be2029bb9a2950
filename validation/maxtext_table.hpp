#pragma once

// MaxText's published TPU runs (data/perf/maxtext_tpu_mfu_published.csv,
// the v4 models from maxtext_v4_launch_configs.csv) and the mesh model
// against them: MFU per run and whether each run is predicted to fit.

#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "validation/model_validation.hpp"
#include "validation/published_tables.hpp"

namespace paratune {

/// Reads both files. Throws input_error naming the file, line and column.
std::vector<maxtext_row> read_maxtext_table(const std::string& data_dir);

/// Predicted against measured MFU per run, and the fit verdicts. Gates:
/// MFU MAPE <= 8%, every run predicted to fit. `clusters` gives the
/// cluster spec for each row's cluster_ref, in row order.
table_validation validate_maxtext(const std::vector<maxtext_row>& rows,
                                  const std::vector<cluster_spec>& clusters);

} // namespace paratune
