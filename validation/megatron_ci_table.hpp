#pragma once

// Megatron-LM's functional-test golden values
// (data/perf/megatron_ci_golden_values_summary.csv): peak memory of small
// GPT, MoE and Mixtral runs on H100 and A100 with TP, PP, VPP, CP, EP, SP,
// the distributed optimizer and recompute. The model's allocated memory of
// the logging rank against torch's max allocated bytes, and the fit verdict.

#include <string>
#include <vector>

#include "core/perf/perf_model.hpp"
#include "core/perf/memory_verdict.hpp"
#include "validation/model_validation.hpp"
#include "validation/published_tables.hpp"

namespace paratune {

/// What torch's max allocated bytes count of a stage's predicted memory:
/// everything but the CUDA context, NCCL's own buffers and the allocator's
/// slack (the model's overhead term).
double predicted_allocated_mib(const memory_breakdown& m);

/// Reads the rows whose layout the summary states; the others are counted
/// in `skipped` with the reason. Throws input_error naming the file, line
/// and column of a malformed cell.
megatron_ci_table read_megatron_ci_table(const std::string& data_dir);

/// The model's memory error as the fit verdict meets it: the 10th and 90th
/// percentile (interpolated) of measured peak / predicted peak - 1 over the
/// runs that measured at least band_min_measured_gib. core/perf keeps a copy
/// (measured_memory_error); a test holds the two together.
memory_error_band measure_memory_error(const megatron_ci_table& table);

/// Predicted allocated memory (weights, gradients, optimizer, activations,
/// logits: no CUDA context, no allocator slack, as torch's max allocated) of
/// the last pipeline stage, which logs, against the measured peak; the fit
/// verdict of every run on its device. Gates: every run predicted to fit,
/// memory MAPE <= 15%.
table_validation validate_megatron_ci(const megatron_ci_table& table);

} // namespace paratune
