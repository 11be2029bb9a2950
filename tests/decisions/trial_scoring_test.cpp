// The result a finished run scores: score_trial over run records built in
// memory, one per way a trial ends.

#include <gtest/gtest.h>

#include "decisions/trial_scoring.hpp"
#include "tests/decisions/decision_fixtures.hpp"

namespace paratune {
namespace {

using namespace test;

/// Trial 4 on 8 GPUs of 989 TFLOP/s, with `n` iterations of 1000 ms at
/// 400 TFLOP/s except the first (compilation, 5000 ms at 80).
trial_run_record run_with(int n) {
  trial_run_record r;
  r.proposal = proposal_on(4, 2, "a");
  r.world_size = 8;
  r.peak_tflops = 989;
  r.memory_limit_mib = 81920;
  r.started_at_ms = 1'700'000'000'000;
  for (int i = 1; i <= n; ++i)
    r.samples.push_back({i, i == 1 ? 5000.0 : 1000.0, i == 1 ? 80.0 : 400.0});
  r.log_peak_mib = 60000;
  r.tail = {"iteration 6/ 6 | elapsed time per iteration (ms): 1000.0"};
  return r;
}

// A framework that scores its runs by its own rule (MaxText: compilation,
// ramp-up and profiler steps apart, whatever the job's warm-up) gives the
// trial's measurement; the GPU-hours still count every logged iteration.
TEST(TrialScoring, AFrameworksOwnScoreIsTheTrialsMeasurement) {
  auto run = run_with(6);
  run.score = trial_score{5, 1000.0, 400.0};
  const auto r = score_trial(run, 0, 0);
  EXPECT_EQ(r.status, trial_status::succeeded);
  EXPECT_EQ(r.iterations_scored, 5);
  EXPECT_EQ(r.iteration_ms, 1000.0);
  EXPECT_EQ(r.tflops_per_gpu, 400.0);
  EXPECT_DOUBLE_EQ(r.gpu_hours, 10000.0 / 3.6e6 * 8);
  run.score = trial_score{};  // its rule scored nothing: not a success
  EXPECT_EQ(score_trial(run, 0, 0).status, trial_status::failed);
}

TEST(TrialScoring, ARunThatEndsCleanlyIsMeasuredPastItsWarmUp) {
  auto run = run_with(6);
  run.monitor_peak_mib = 61000; // the GPU monitor's peak beats the log's
  run.gpu_util_sum = 180;
  run.gpu_util_n = 2;
  const auto r = score_trial(run, 0, 1'700'000'100'000);
  EXPECT_EQ(r.status, trial_status::succeeded);
  EXPECT_EQ(r.trial, 4);
  EXPECT_EQ(r.pool, "a");
  EXPECT_EQ(r.iterations_logged, 6);
  EXPECT_EQ(r.iterations_scored, 4); // two warm-up iterations dropped
  EXPECT_DOUBLE_EQ(r.tflops_per_gpu, 400);
  EXPECT_DOUBLE_EQ(r.iteration_ms, 1000);
  EXPECT_NEAR(r.mfu, 400.0 / 989, 1e-12);
  EXPECT_DOUBLE_EQ(r.peak_memory_mib, 61000);
  EXPECT_DOUBLE_EQ(r.gpu_util_pct, 90);
  EXPECT_NEAR(r.gpu_hours, 10000.0 / 3.6e6 * 8, 1e-12); // every iteration ran on 8 GPUs
  EXPECT_EQ(r.ended_at_ms, 1'700'000'100'000);
  EXPECT_EQ(r.error_kind, failure_kind::none);
}

TEST(TrialScoring, AFailureLineFailsTheRunWhateverItsExitStatus) {
  auto run = run_with(3);
  run.failure = logged_failure{failure_kind::oom, "torch.OutOfMemoryError: CUDA out of memory."};
  const auto r = score_trial(run, 0, 0);
  EXPECT_EQ(r.status, trial_status::failed);
  EXPECT_EQ(r.error_kind, failure_kind::oom);
  EXPECT_EQ(r.error_message, "torch.OutOfMemoryError: CUDA out of memory.");
  EXPECT_EQ(r.reason, r.error_message);
  EXPECT_DOUBLE_EQ(r.tflops_per_gpu, 0);
}

TEST(TrialScoring, ACommandThatNeverRanIsALauncherErrorInItsOwnWords) {
  auto run = run_with(0);
  run.tail = {"+ cd /scratch/tune/s1/4", "bash: line 3: torchrun: command not found"};
  const auto r = score_trial(run, 127, 0);
  EXPECT_TRUE(never_ran(127));
  EXPECT_FALSE(never_ran(1));
  EXPECT_EQ(r.status, trial_status::failed);
  EXPECT_EQ(r.error_kind, failure_kind::launcher_error);
  EXPECT_EQ(r.error_message, "+ cd /scratch/tune/s1/4\nbash: line 3: torchrun: command not found");
  EXPECT_EQ(r.gpu_hours, 0);
}

TEST(TrialScoring, ACrashBeforeTheFirstIterationQuotesItsLastLines) {
  auto run = run_with(0);
  run.tail = {"pretrain_gpt.py: error: unrecognized arguments: --bogus"};
  const auto r = score_trial(run, 2, 0);
  EXPECT_EQ(r.status, trial_status::failed);
  EXPECT_EQ(r.error_kind, failure_kind::none);
  EXPECT_EQ(r.error_message,
            "exit status 2: pretrain_gpt.py: error: unrecognized arguments: --bogus");
  const auto later = score_trial(run_with(4), 1, 0);
  EXPECT_EQ(later.error_message, "exit status 1");
  const auto silent = score_trial(run_with(0), 0, 0);
  EXPECT_EQ(silent.error_message, "no iteration could be scored");
}

TEST(TrialScoring, TheSchedulersAccountOfTheEndIsKept) {
  auto run = run_with(4);
  run.tail.push_back("slurm: job 4211 ended NODE_FAIL");
  const auto r = score_trial(run, 1, 0);
  EXPECT_EQ(r.status, trial_status::failed);
  EXPECT_EQ(r.error_message, "slurm: job 4211 ended NODE_FAIL");
}

TEST(TrialScoring, AnEarlyStopIsMeasuredUnlessItWasACancel) {
  auto run = run_with(5);
  run.stop = {stop_reason::stable, "the last 3 iterations lie within 2%"};
  auto r = score_trial(run, -15, 0);
  EXPECT_EQ(r.status, trial_status::stopped);
  EXPECT_EQ(r.stop, stop_reason::stable);
  EXPECT_EQ(r.reason, "the last 3 iterations lie within 2%");
  EXPECT_EQ(r.iterations_scored, 3);
  EXPECT_DOUBLE_EQ(r.tflops_per_gpu, 400);

  run.stop = {stop_reason::cancelled, "the session was cancelled"};
  r = score_trial(run, -15, 0);
  EXPECT_EQ(r.status, trial_status::stopped);
  EXPECT_DOUBLE_EQ(r.tflops_per_gpu, 0);
  EXPECT_EQ(r.iterations_scored, 0);
}

TEST(TrialScoring, AHangIsAFailedTrialCountedAsAnNcclTimeout) {
  auto run = run_with(3);
  run.stop = {stop_reason::hang, "no output for 600 s"};
  const auto r = score_trial(run, -9, 0);
  EXPECT_EQ(r.status, trial_status::failed);
  EXPECT_EQ(r.error_kind, failure_kind::nccl_timeout);
  EXPECT_EQ(r.error_message, "no output for 600 s");
  EXPECT_EQ(r.stop, stop_reason::hang);
}

} // namespace
} // namespace paratune
