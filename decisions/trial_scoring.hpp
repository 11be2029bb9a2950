#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "core/logged_failure.hpp"
#include "core/trial_outcome.hpp"
#include "core/trial_scoring.hpp"
#include "core/tuning/early_stop.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// What the validator saw of one trial's run, everything its result is
/// scored from. The validator fills it as lines arrive; nothing in it is a
/// process or a file.
struct trial_run_record {
  wire::proposal proposal;
  int world_size = 1;
  double peak_tflops = 0;        ///< the device's bf16 peak MFU is counted against (mfu_peak_tflops)
  double memory_limit_mib = 0;
  int warmup = 2;                ///< iterations never scored
  int64_t started_at_ms = 0;     ///< Unix time
  int64_t queued_ms = 0;         ///< time a scheduler held it before it ran
  std::vector<iteration_sample> samples;
  /// The run's step time and throughput by its framework's own rule
  /// (frameworks/framework.hpp's run_reader::score), when its reader gave
  /// one; none: the median of `samples` after `warmup` (core/trial_scoring).
  std::optional<trial_score> score;
  std::optional<logged_failure> failure;
  double log_peak_mib = 0;       ///< the log's largest reserved memory
  double monitor_peak_mib = 0;   ///< the GPU monitor's, which wins when there is one
  double gpu_util_sum = 0;
  int gpu_util_n = 0;
  std::deque<std::string> tail;  ///< its last lines, secrets already hidden
  stop_decision stop;            ///< set when the early stopper (or a cancel) ended it
};

/// Exit statuses that say the command never ran: the scheduler refused or
/// lost the job (125, slurm_job_watch), the command could not be executed
/// (126) or found (127, also an exec that failed).
bool never_ran(int exit_code);

/// The result of a run that ended with `exit_code` at `ended_at_ms`:
/// - succeeded: exit 0, no failure line, at least one iteration scored
///   (core/trial_scoring: warm-up and stragglers excluded);
/// - stopped: the early stopper ended it once its answer was known,
///   measured over what it ran (a cancelled one is not measured);
/// - failed: anything else, with the log's failure, or a hang (an NCCL
///   timeout), or the command's own last words when it never printed an
///   iteration; a launcher error when it never ran at all.
wire::trial_result score_trial(const trial_run_record& run, int exit_code, int64_t ended_at_ms);

} // namespace paratune
