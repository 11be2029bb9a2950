#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "core/full_run_cost.hpp"
#include "report/session_summary.hpp"

namespace paratune {

/// Where the baseline's throughput came from, in the order it is looked for.
enum class baseline_source {
  session_trial,  ///< a trial of this session ran the baseline configuration
  job_file,       ///< the `tflops_per_gpu` the team gave in the job
  not_measured,   ///< neither: the baseline is named but not priced
};
const char* to_string(baseline_source s);

/// The baseline's measured throughput, without pricing it: from a trial
/// of this session that ran the baseline configuration, else the job
/// file's `tflops_per_gpu`; none when the job names no baseline or neither
/// measures it. Needs no `tokens:` (the report's gain over the baseline).
struct baseline_pace {
  baseline_source source = baseline_source::not_measured;
  int trial = 0;
  double tflops_per_gpu = 0;
};
std::optional<baseline_pace> baseline_pace_of(const session_summary& s);

/// The job's baseline priced over its token budget (OptiCo section 3.5).
struct baseline_value {
  baseline_source source = baseline_source::not_measured;
  int trial = 0;               ///< the session's trial that ran it (session_trial)
  double tflops_per_gpu = 0;   ///< 0 when not measured
  full_run_cost cost;          ///< zero when not measured
  double gpu_hours_saved = 0;  ///< its GPU-hours less the best configuration's
};

/// None when the job gave no baseline, no `tokens:` or no measured trial
/// (the best configuration is the other side of the comparison).
///
/// Without a trial of its own, the baseline's pace follows from the best
/// trial's: at a fixed model and sequence length every token costs the same
/// FLOPs, so time per token scales as 1 / (TFLOP/s per GPU).
std::optional<baseline_value> baseline_of(const session_summary& s);

/// `full_run.baseline`: {source, trial, tflops_per_gpu, iterations, days,
/// gpu_hours, gpu_hours_saved}, the numbers absent when not measured; null
/// when baseline_of is none.
nlohmann::json baseline_json(const session_summary& s);

/// One sentence for the text and markdown reports, saying which source
/// was used; empty when baseline_of is none.
std::string baseline_sentence(const session_summary& s);

} // namespace paratune
