// A daemon's Slurm trials outlive it: killed with SIGKILL or stopped with
// SIGTERM while a batch job runs, the next daemon attaches to the same job,
// follows its output file from the first line and records its result. No
// job is submitted twice. Skipped when no local Slurm runs (CI starts one).

#include <filesystem>
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

TEST(daemon_slurm, jobs_outlive_a_killed_and_a_stopped_daemon_and_are_attached_again) {
  if (!test::use_local_slurm())
    GTEST_SKIP() << test::no_local_slurm;
  const auto dir = test::make_temp_dir("daemon-slurm");
  const auto state = dir + "/state";
  std::string id;
  int64_t job1 = 0, job2 = 0;
  {
    test::daemon_process d{state};
    ASSERT_TRUE(d.up()) << d.output();
    auto r = test::request_of(control_op::submit);
    r.job_yaml = slurm_job_text();
    const auto submitted = d.call(r);
    ASSERT_TRUE(submitted.ok) << submitted.error;
    id = submitted.session;
    job1 = wait_for_job(d, id, 1);
    ASSERT_GT(job1, 0) << d.output();
    d.kill9();
  }
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

} // namespace
} // namespace paratune
