#pragma once

#include <string>
#include <vector>

#include "core/early_stop_policy.hpp"
#include "core/trial_scoring.hpp"

namespace paratune {

/// Why to stop a trial now, in words, or reason none to let it run.
struct stop_decision {
  stop_reason reason = stop_reason::none;
  std::string text;
  explicit operator bool() const { return reason != stop_reason::none; }
};

/// The best measured throughput of the session so far. TFLOP/s per GPU is
/// compared when both sides have it, else the iteration time (the trials of
/// one session train the same global batch and sequence).
struct incumbent_rate {
  double tflops_per_gpu = 0;
  double iteration_ms = 0;
  bool known() const { return tflops_per_gpu > 0 || iteration_ms > 0; }
};

/// Watches one trial's iterations and clock, and says when to end it:
/// - stable: the last `stable_after` scored iterations lie within `tolerance`;
/// - cannot_beat_incumbent (a rung rule in the spirit of ASHA): at 3, 6, 12,
///   24 ... scored iterations, its median throughput, granted `tolerance`,
///   is still below the incumbent's;
/// - failure: an OOM, NCCL timeout or assertion line, at once;
/// - hang and wall_clock: from the caller's clock.
class early_stopper {
public:
  explicit early_stopper(early_stop_policy policy, incumbent_rate incumbent = {});

  /// One logged iteration (in log order).
  stop_decision on_iteration(const iteration_sample& s);
  /// The first error line the log parser recognised ("CUDA out of memory").
  stop_decision on_failure(const std::string& line) const;
  /// Seconds since the trial started and since its last output line.
  stop_decision on_clock(double since_start_s, double since_line_s) const;
  /// Another trial of the session measured `other`: it becomes what this
  /// one races when it is better than the incumbent so far.
  void race(incumbent_rate other);

  int scored() const { return int(scored_.size()); }

private:
  stop_decision stable() const;
  stop_decision against_incumbent();

  early_stop_policy policy_;
  incumbent_rate incumbent_;
  int seen_ = 0;
  std::vector<iteration_sample> scored_;
  int next_rung_ = 3;
};

} // namespace paratune
