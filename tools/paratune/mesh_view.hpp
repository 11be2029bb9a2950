#pragma once

// How `predict` and `plan` show a TPU mesh prediction: JSON with the field
// names of docs/cli_json.md, and readable text.

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "core/diagnosis/experiment_spec.hpp"
#include "core/tpu/mesh_model.hpp"

namespace paratune::cli {

/// The job's description: model, chips, slice, batch, sequence, remat.
nlohmann::json mesh_job_json(const experiment_spec& e);

/// Every field of one prediction: step_time_s ... limiting_factor, the time
/// and memory breakdowns, the axes and the ops.
nlohmann::json mesh_prediction_json(const mesh_prediction& p);

/// "llama3-8b on v5e 16x16 x 4 slices (tpu-v5e), batch 1024 x seq 2048, remat full"
std::string describe_mesh_job(const experiment_spec& e);

/// Throughput, memory and its verdict, the time breakdown, the axes and the
/// five longest ops.
void write_mesh_prediction(std::ostream& out, const mesh_prediction& p);

} // namespace paratune::cli
