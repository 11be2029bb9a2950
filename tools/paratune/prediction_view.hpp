#pragma once

// How `predict` and `plan` show a prediction: JSON with the field names of
// docs/cli_json.md (kept stable), and readable text.

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "core/perf/perf_model.hpp"

namespace paratune::cli {

/// The configuration as typed JSON: integers, booleans, recompute as text.
nlohmann::json config_json(const training_config& c);

/// One stage's memory: stage, weights_mib, ..., total_mib.
nlohmann::json memory_json(const memory_breakdown& m);

/// The time breakdown: compute_s, recompute_s, tp_comm_s, ..., other_s.
nlohmann::json time_json(const time_breakdown& t);

/// Every field of the prediction (iteration_time_s ... limiting_factor).
nlohmann::json prediction_json(const perf_prediction& p);

/// The readable report: throughput, memory of the most loaded GPU, the fit
/// verdict, the time breakdown and the limiting factor.
void write_prediction(std::ostream& out, const perf_prediction& p);

} // namespace paratune::cli
