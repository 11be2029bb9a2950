// A daemon's Slurm trials outlive it: killed with SIGKILL or stopped with
// SIGTERM while a batch job runs, the next daemon attaches to the same job,
// follows its output file from the first line and records its result. No
// job is submitted twice. A TPU session's run on a Slurm pool is followed
// again the same way. Skipped when no local Slurm runs (CI starts one).

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "messages/codec.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/e2e/local_slurm.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using control::control_op;

std::string slurm_job_text() {
  return "name: daemon-slurm\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
         "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
         "trials: 2\nstop: budget\n"
         "pools:\n"
         "  - {name: a100, kind: slurm, partition: a100, via: sbatch, capacity: 1,\n"
         "     launch: [\"" + test::bin_dir() + "/paratune-sim\", --sim-world-size,\n"
         "              \"{gpus_per_node}\", --sim-time-scale, \"0.003\", --sim-failure-rate, \"0\",\n"
         "              --sim-seed, \"{trial}\", \"{megatron_args}\"]}\n";
}

std::vector<wire::envelope> history(test::daemon_process& d, const std::string& id) {
  return d.call(test::request_of(control_op::history, id)).records;
}

/// The Slurm job id recorded for `trial`, once its trial_job is stored.
int64_t wait_for_job(test::daemon_process& d, const std::string& id, int trial) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    for (const auto& e : history(d, id))
      if (e.type == "trial_job" && e.trial == trial)
        return wire::body_of<wire::trial_job>(e).slurm_job_id;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return 0;
}

/// Slurm's word for the job's state ("RUNNING", "PENDING"), empty when it
/// no longer lists it.
std::string squeue_state(int64_t job) {
  return test::run_program({"/usr/bin/env", "squeue", "-h", "-j", std::to_string(job), "-o", "%T"})
    .out;
}

/// Submits `yaml` to a daemon on `state`, waits until trial 1's batch job is
/// recorded, and kills the daemon with SIGKILL; the session's id in `id`.
/// Returns that job's id (0: never recorded).
int64_t submit_then_kill9(const std::string& state, const std::string& yaml, std::string& id) {
  test::daemon_process d{state};
  EXPECT_TRUE(d.up()) << d.output();
  auto r = test::request_of(control_op::submit);
  r.job_yaml = yaml;
  const auto submitted = d.call(r);
  EXPECT_TRUE(submitted.ok) << submitted.error;
  id = submitted.session;
  const auto job = wait_for_job(d, id, 1);
  EXPECT_GT(job, 0) << d.output();
  d.kill9();
  return job;
}

TEST(daemon_slurm, jobs_outlive_a_killed_and_a_stopped_daemon_and_are_attached_again) {
  if (!test::use_local_slurm())
    GTEST_SKIP() << test::no_local_slurm;
  const auto dir = test::make_temp_dir("daemon-slurm");
  const auto state = dir + "/state";
  std::string id;
  int64_t job1 = 0, job2 = 0;
  job1 = submit_then_kill9(state, slurm_job_text(), id);
  ASSERT_GT(job1, 0);
  // The job runs on without the daemon that submitted it.
  EXPECT_NE(squeue_state(job1), "");
  {
    test::daemon_process d{state};
    ASSERT_TRUE(d.up()) << d.output();
    job2 = wait_for_job(d, id, 2); // trial 1 ended under this daemon, trial 2 started
    ASSERT_GT(job2, 0) << d.output();
    EXPECT_EQ(d.stop(), 0); // graceful: the job is left running, not cancelled
  }
  EXPECT_NE(squeue_state(job2), "");
  test::daemon_process d{state};
  ASSERT_TRUE(d.up()) << d.output();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::vector<wire::envelope> h;
  auto ended = [&] {
    h = history(d, id);
    for (const auto& e : h)
      if (e.type == "session_status" && is_final(wire::body_of<wire::session_status>(e).state))
        return true;
    return false;
  };
  while (!ended() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(ended()) << d.output();
  std::map<int, int> jobs_recorded, placed, results, interrupted;
  for (const auto& e : h) {
    if (e.type == "trial_job")
      ++(wire::body_of<wire::trial_job>(e).hosts.empty() ? jobs_recorded : placed)[e.trial];
    if (e.type == "trial_interrupted")
      ++interrupted[e.trial];
    if (e.type != "trial_result")
      continue;
    ++results[e.trial];
    const auto r = wire::body_of<wire::trial_result>(e);
    EXPECT_EQ(r.status, trial_status::succeeded) << "trial " << r.trial << ": " << r.reason;
    EXPECT_EQ(r.iterations_scored, 10) << "trial " << r.trial; // 12 logged, 2 warm-up
    EXPECT_GT(r.tflops_per_gpu, 0);
  }
  // One job per trial, each submitted once and attached to, never rerun.
  EXPECT_EQ(jobs_recorded, (std::map<int, int>{{1, 1}, {2, 1}}));
  // Its nodes recorded once, by whichever daemon saw the job run first.
  EXPECT_EQ(placed, (std::map<int, int>{{1, 1}, {2, 1}}));
  EXPECT_EQ(results, (std::map<int, int>{{1, 1}, {2, 1}}));
  EXPECT_TRUE(interrupted.empty());
  EXPECT_EQ(squeue_state(job1), "");
  EXPECT_EQ(squeue_state(job2), "");
  std::filesystem::remove_all(dir);
}

/// ASAP's v6e-16 experiment on a Slurm pool: paratune-tpu-sim's trainer as
/// the batch job's command, each run long enough to kill the daemon in it.
std::string tpu_slurm_experiment_text() {
  const auto exp = test::source_dir() + "/tests/fixtures/asap/v6e-16-hbm/experiment.yaml";
  std::ifstream in(exp);
  std::string text{std::istreambuf_iterator<char>(in), {}};
  return text + "trials: 2\nsteps: 8\n"
         "pools:\n"
         "  - {name: v6e, kind: slurm, partition: a100, via: sbatch, capacity: 1,\n"
         "     launch: [\"" + test::bin_dir() + "/paratune-tpu-sim\", train, --time-scale,\n"
         "              \"0.3\", \"" + exp + "\", \"{maxtext_args}\"]}\n";
}

TEST(daemon_slurm, a_tpu_run_on_slurm_outlives_a_killed_daemon_and_is_followed_again) {
  if (!test::use_local_slurm())
    GTEST_SKIP() << test::no_local_slurm;
  const auto dir = test::make_temp_dir("daemon-slurm-tpu");
  const auto state = dir + "/state";
  std::string id;
  const int64_t job1 = submit_then_kill9(state, tpu_slurm_experiment_text(), id);
  ASSERT_GT(job1, 0);
  // The run trains on without the daemon that submitted it.
  EXPECT_NE(squeue_state(job1), "");
  test::daemon_process d{state};
  ASSERT_TRUE(d.up()) << d.output();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::vector<wire::envelope> h;
  std::optional<wire::tpu_session_end> end;
  while (!end && std::chrono::steady_clock::now() < deadline) {
    h = history(d, id);
    for (const auto& e : h)
      if (e.type == wire::type_name<wire::tpu_session_end>())
        end = wire::body_of<wire::tpu_session_end>(e);
    if (!end)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(end) << d.output();
  EXPECT_EQ(end->state, session_state::finished) << end->text;
  std::map<int, std::set<int64_t>> jobs_recorded;
  for (const auto& e : h)
    if (e.type == "trial_job")
      jobs_recorded[e.trial].insert(wire::body_of<wire::trial_job>(e).slurm_job_id);
  // One batch job per run, each submitted once (its record is stored again
  // with its hosts once Slurm placed it); trial 1's was followed to its end
  // by the second daemon: measured, never interrupted or run again.
  ASSERT_EQ(jobs_recorded.size(), 2u);
  EXPECT_EQ(jobs_recorded[1], (std::set<int64_t>{job1}));
  EXPECT_EQ(jobs_recorded[2].size(), 1u);
  for (const auto& e : h)
    EXPECT_NE(e.type, wire::type_name<wire::trial_interrupted>());
  ASSERT_EQ(end->trials.size(), 2u);
  for (const auto& t : end->trials) {
    SCOPED_TRACE("trial " + std::to_string(t.trial));
    EXPECT_EQ(t.error, "");
    EXPECT_EQ(t.retry_of, 0);
    EXPECT_GT(t.step_time_ms, 0);
    EXPECT_EQ(t.pool, "v6e");
  }
  EXPECT_FALSE(end->trials[0].bottleneck.empty()); // diagnosed from its profile
  EXPECT_EQ(squeue_state(job1), "");
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace paratune
