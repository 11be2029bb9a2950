#include "decisions/trial_scoring.hpp"

#include <algorithm>

#include "core/last_lines.hpp"
#include "core/model_flops_utilization.hpp"

namespace paratune {

namespace {

double peak_memory(const trial_run_record& t) {
  return t.monitor_peak_mib > 0 ? t.monitor_peak_mib : t.log_peak_mib;
}

void fill_measurements(const trial_run_record& t, const trial_score& score,
                       wire::trial_result& r) {
  r.tflops_per_gpu = score.tflops_per_gpu;
  r.iteration_ms = score.iteration_ms;
  r.mfu = model_flops_utilization(score.tflops_per_gpu, t.peak_tflops);
  r.peak_memory_mib = peak_memory(t);
  r.gpu_util_pct = t.gpu_util_n > 0 ? t.gpu_util_sum / t.gpu_util_n : 0;
  r.iterations_scored = score.scored;
}

/// A trial the early stopper ended: measured over the iterations it ran
/// (stopped), or failed when a failure line or a hang ended it.
void apply_stop(const trial_run_record& t, const trial_score& score, wire::trial_result& r) {
  r.stop = t.stop.reason;
  r.reason = t.stop.text;
  if (t.stop.reason == stop_reason::failure || t.stop.reason == stop_reason::hang) {
    r.status = trial_status::failed;
    if (t.stop.reason == stop_reason::hang)
      r.error_kind = failure_kind::nccl_timeout; // "NCCL timeout or hang"
    if (r.error_message.empty())
      r.error_message = t.stop.text;
    return;
  }
  r.status = trial_status::stopped;
  if (score.scored > 0 && t.stop.reason != stop_reason::cancelled)
    fill_measurements(t, score, r);
}

/// What a job that never trained said last, whole lines: bash's "No such
/// file or directory", a cd that failed, slurmstepd's or the watch's account
/// of a job Slurm could not start. Four lines or 400 bytes hold such a reason
/// and what led to it (core/clipped_lines makes them one line for the user).
std::string own_last_words(const trial_run_record& t) { return last_lines(t.tail, 4, 400); }

/// A trial that printed no iteration and ended as a launcher does when it
/// could not start the job: a launcher error, in the launcher's words.
void classify_launch_failure(const trial_run_record& t, int exit_code, wire::trial_result& r) {
  if (t.failure)
    return;
  if (!t.tail.empty() && t.tail.back().rfind("slurm: ", 0) == 0)
    r.error_message = t.tail.back(); // the scheduler's account of the end: NODE_FAIL, ...
  if (!t.samples.empty() || !never_ran(exit_code))
    return;
  r.error_kind = failure_kind::launcher_error;
  if (!t.tail.empty())
    r.error_message = own_last_words(t);
}

} // namespace

bool never_ran(int exit_code) { return exit_code >= 125 && exit_code <= 127; }

wire::trial_result score_trial(const trial_run_record& t, int exit_code, int64_t ended_at_ms) {
  wire::trial_result r;
  r.trial = t.proposal.trial;
  r.retry_of = t.proposal.retry_of;
  r.started_at_ms = t.started_at_ms;
  r.queued_ms = t.queued_ms;
  r.pool = t.proposal.pool;
  r.ended_at_ms = ended_at_ms;
  double ms = 0;
  for (const auto& s : t.samples)
    ms += s.elapsed_ms;
  r.gpu_hours = ms / 3.6e6 * t.world_size;
  r.config = t.proposal.config;
  r.exit_code = exit_code;
  r.memory_limit_mib = t.memory_limit_mib;
  r.log_tail.assign(t.tail.begin(), t.tail.end());
  r.iterations_logged = int(t.samples.size());
  const auto score = t.score ? *t.score : score_iterations(t.samples, t.warmup);
  if (t.failure) {
    r.error_kind = t.failure->kind;
    r.error_message = t.failure->message;
  }
  classify_launch_failure(t, exit_code, r);
  if (t.stop) {
    apply_stop(t, score, r);
    return r;
  }
  if (exit_code == 0 && !t.failure && score.scored > 0) {
    r.status = trial_status::succeeded;
    fill_measurements(t, score, r);
    return r;
  }
  r.status = trial_status::failed;
  // A command that ended before its first iteration said why on its
  // stderr (a bad option, a missing module, a cd that failed): the status
  // alone would hide it.
  if (r.error_message.empty())
    r.error_message = exit_code == 0 ? "no iteration could be scored"
                      : t.samples.empty() && !t.tail.empty()
                        ? "exit status " + std::to_string(exit_code) + ": " + own_last_words(t)
                        : "exit status " + std::to_string(exit_code);
  r.reason = r.error_message;
  return r;
}

} // namespace paratune
