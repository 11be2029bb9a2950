// The command a placed trial runs, per pool kind: give_trial_command.

#include <algorithm>

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "decisions/trial_command.hpp"
#include "tests/decisions/decision_fixtures.hpp"

namespace paratune {
namespace {

using namespace test;

bool has_pair(const std::vector<std::string>& argv, const std::string& flag,
              const std::string& value) {
  const auto at = std::find(argv.begin(), argv.end(), flag);
  return at != argv.end() && at + 1 != argv.end() && *(at + 1) == value;
}

wire::session_opened simulated_job() {
  auto job = job_on({pool_named("sim", 1)});
  job.sim_path = "/opt/paratune/bin/paratune-sim";
  job.sim_cluster = "dgx-a100";
  job.seed = 7;
  return job;
}

TEST(TrialCommand, ASimulatedTrialRunsTheSimulatorWithItsOwnSeed) {
  const auto job = simulated_job();
  auto p = proposal_on(3, 4, "sim");
  give_trial_command(p, job, "s1");
  ASSERT_FALSE(p.argv.empty());
  EXPECT_EQ(p.argv[0], "/opt/paratune/bin/paratune-sim");
  EXPECT_TRUE(has_pair(p.argv, "--sim-cluster", "dgx-a100"));
  EXPECT_TRUE(has_pair(p.argv, "--sim-world-size", "8"));
  EXPECT_TRUE(has_pair(p.argv, "--sim-seed", "7003"));
  EXPECT_TRUE(has_pair(p.argv, "--micro-batch-size", "4"));
  EXPECT_TRUE(p.workdir.empty());
}

TEST(TrialCommand, ALocalPoolRendersItsTemplateInTheTrialsDirectory) {
  auto pool = pool_named("box", 1, pool_kind::local);
  pool.launch = {"torchrun", "--nproc-per-node", "{gpus_per_node}", "pretrain_gpt.py",
                 "{megatron_args}", "--save={workdir}/ckpt"};
  pool.gpus_per_node = 4;
  auto job = job_on({pool});
  job.workdir = "/scratch/tune";
  auto p = proposal_on(2, 1, "box");
  give_trial_command(p, job, "s9");
  EXPECT_EQ(p.workdir, "/scratch/tune/s9/2");
  ASSERT_GE(p.argv.size(), 5u);
  EXPECT_EQ(p.argv[0], "torchrun");
  EXPECT_EQ(p.argv[2], "4");
  EXPECT_EQ(p.argv[3], "pretrain_gpt.py");
  EXPECT_EQ(p.argv.back(), "--save=/scratch/tune/s9/2/ckpt");
  EXPECT_TRUE(has_pair(p.argv, "--micro-batch-size", "1"));
}

TEST(TrialCommand, ARelayedSlurmTrialRunsUnderTheRelay) {
  auto pool = pool_named("h100", 2, pool_kind::slurm);
  pool.launch = {"python", "pretrain_gpt.py", "{megatron_args}"};
  pool.relay = true;
  pool.relay_path = "/opt/paratune/bin/paratune-relay";
  pool.workdir = "/lustre/me";
  auto job = job_on({pool});
  job.workdir = "/home/me/tune"; // the pool's own workdir wins
  job.relay_endpoint = "tcp://10.0.0.1:5555";
  auto p = proposal_on(5, 2, "h100");
  give_trial_command(p, job, "s2");
  EXPECT_EQ(p.workdir, "/lustre/me/s2/5");
  const std::vector<std::string> head = {"/opt/paratune/bin/paratune-relay", "--bus",
                                         "tcp://10.0.0.1:5555", "--session", "s2", "--trial", "5",
                                         "--log", "/lustre/me/s2/5/relay.log", "--", "python"};
  ASSERT_GT(p.argv.size(), head.size());
  EXPECT_TRUE(std::equal(head.begin(), head.end(), p.argv.begin()));
}

TEST(TrialCommand, AReplayTrialRunsNothing) {
  auto job = job_on({pool_named("table", 1, pool_kind::replay)});
  auto p = proposal_on(1, 1, "table");
  give_trial_command(p, job, "s1");
  EXPECT_TRUE(p.argv.empty());
}

TEST(TrialCommand, ATemplateThatDoesNotRenderIsAnInputError) {
  auto pool = pool_named("box", 1, pool_kind::local);
  pool.launch = {"torchrun", "{no_such_field}"};
  auto job = job_on({pool});
  auto p = proposal_on(1, 1, "box");
  EXPECT_THROW(give_trial_command(p, job, "s1"), input_error);
}

} // namespace
} // namespace paratune
