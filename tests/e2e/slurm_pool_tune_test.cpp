// Tuning over a real Slurm (tools/slurm-local): trials submitted by sbatch
// or slurmrestd as batch scripts that exec the rendered launch template, their output
// followed from the job's file, and stopped early by scancel. Skipped when
// no local Slurm runs (CI starts one).

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/e2e/local_slurm.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/trial_times.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct slurm_pool_tune : ::testing::Test {
  void SetUp() override {
    if (!test::use_local_slurm())
      GTEST_SKIP() << test::no_local_slurm;
    dir = test::make_temp_dir("slurm-pool");
  }
  void TearDown() override {
    if (!dir.empty())
      fs::remove_all(dir);
  }

  nlohmann::json tune(const std::string& extra,
                      const std::string& pool = "{name: a100, kind: slurm, partition: a100, "
                                                "via: sbatch, capacity: 1,",
                      std::string sim = test::bin_dir() + "/paratune-sim",
                      const std::string& cluster = "dgx-a100-80g") {
    const auto job = test::write_file(
        dir, "job.yaml",
        "name: llama3-8b-slurm\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
        "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
        "pools:\n"
        "  - " + pool + "\n"
        "     launch: [\"" + sim + "\", --sim-cluster, \"" + cluster + "\", --sim-world-size,\n"
        "              \"{gpus_per_node}\", --sim-time-scale, \"0.002\", --sim-failure-rate, \"0\",\n"
        "              --sim-seed, \"{trial}\", \"{megatron_args}\"]}\n" + extra);
    const auto r = test::run_program(
        {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  /// A slurm pool over sbatch whose trials run paratune-sim with `sim_args`.
  std::string sbatch_pool(const std::string& name, const std::string& partition, int capacity,
                          const std::string& sim_args = "--sim-failure-rate, \"0\"") const {
    return "  - {name: " + name + ", kind: slurm, partition: " + partition
           + ", via: sbatch, capacity: " + std::to_string(capacity) + ",\n"
             "     launch: [\"" + test::bin_dir() + "/paratune-sim\", --sim-world-size,\n"
             "              \"{gpus_per_node}\", --sim-time-scale, \"0.02\", " + sim_args + ",\n"
             "              --sim-seed, \"{trial}\", \"{megatron_args}\"]}\n";
  }

  /// `paratune tune --json` on a job with these pools and the rest of its text.
  /// (exit status 1 when no trial measured anything.)
  nlohmann::json tune_pools(const std::string& pools, const std::string& extra,
                            int expected_status = 0) {
    const auto job = test::write_file(
        dir, "job.yaml",
        "name: llama3-8b-slurm\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
        "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
        "pools:\n" + pools + extra);
    const auto r = test::run_program(
        {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
    EXPECT_EQ(r.status, expected_status) << r.err;
    return nlohmann::json::parse(r.out);
  }

  std::string dir;
};

// Two partitions, two slots each, on a node with two CPUs: four jobs are
// submitted at once, two run and two wait in Slurm's queue.
TEST_F(slurm_pool_tune, trials_queue_and_run_at_the_same_time_on_two_partitions) {
  const auto j = tune_pools(sbatch_pool("a100", "a100", 2) + sbatch_pool("h100", "h100", 2),
                            "trials: 6\nstop: budget\nsimulation: {train_iters: 8}\n");
  ASSERT_EQ(j["trials"].size(), 6u) << j.dump();
  std::set<std::string> pools;
  double longest_queue = 0;
  int out_of_memory = 0;
  for (const auto& t : j["trials"]) {
    // The model's favourite is tight on the A100's 80 GiB and is tried
    // first (one at a time); the simulated truth may find it does not fit.
    if (t["status"] != "succeeded") {
      EXPECT_EQ(t["failure"], "oom") << t.dump();
      ++out_of_memory;
    }
    pools.insert(t["pool"].get<std::string>());
    longest_queue = std::max(longest_queue, t.value("queued_s", 0.0));
  }
  EXPECT_LE(out_of_memory, 2) << j.dump();
  EXPECT_EQ(pools, (std::set<std::string>{"a100", "h100"}));
  EXPECT_GE(test::most_running_at_once(j["trials"]), 2) << j.dump();
  EXPECT_GE(longest_queue, 1.0) << "no job waited in Slurm's queue: " << j.dump();
}

// Every job on a100 loses a node or hangs a collective (the simulator's
// injected failures): the failed trial runs again, once, on h100. a100's
// simulated time runs 10 times faster (the last --sim-time-scale wins) and
// the budget leaves room for h100 to run three trials of its own first, so
// trial 1's failure is known before the budget is spent even when Slurm
// queues a100's job behind other tests' jobs on the 2-CPU node.
TEST_F(slurm_pool_tune, a_failed_trial_is_retried_once_on_the_other_partition) {
  const auto j = tune_pools(sbatch_pool("a100", "a100", 1,
                                        "--sim-failure-rate, \"1\", --sim-time-scale, \"0.002\"")
                              + sbatch_pool("h100", "h100", 1),
                            "trials: 5\nstop: budget\nsimulation: {train_iters: 8}\n");
  ASSERT_EQ(j["trials"].size(), 5u) << j.dump();
  const auto& first = j["trials"][0];
  EXPECT_EQ(first["pool"], "a100");
  EXPECT_EQ(first["status"], "failed");
  const auto kind = first["failure"].get<std::string>();
  EXPECT_TRUE(kind == "node_failure" || kind == "nccl_timeout") << first.dump();
  int retries = 0;
  for (const auto& t : j["trials"]) {
    if (t.value("retry_of", 0) != 1)
      continue;
    ++retries;
    EXPECT_EQ(t["pool"], "h100") << t.dump();
    EXPECT_EQ(t["status"], "succeeded") << t.dump();
    EXPECT_EQ(t["config"], first["config"]);
  }
  EXPECT_EQ(retries, 1) << j.dump();
}

// A partition Slurm does not have: sbatch refuses the job, the trial is a
// launcher error, the pool gets no more trials, and the trial runs again
// on the pool that works.
TEST_F(slurm_pool_tune, a_partition_that_refuses_jobs_is_reported_and_skipped) {
  const auto j = tune_pools(sbatch_pool("gone", "no-such-partition", 1)
                              + sbatch_pool("h100", "h100", 1),
                            "trials: 4\nstop: budget\nsimulation: {train_iters: 8}\n");
  ASSERT_EQ(j["trials"].size(), 4u) << j.dump();
  const auto& first = j["trials"][0];
  EXPECT_EQ(first["pool"], "gone");
  EXPECT_EQ(first["status"], "failed");
  EXPECT_EQ(first["failure"], "launcher_error") << first.dump();
  EXPECT_NE(first["reason"].get<std::string>().find("nvalid partition"), std::string::npos)
    << first.dump();
  int retries = 0;
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(j["trials"][i]["pool"], "h100") << j["trials"][i].dump();
    // succeeded, or the tight favourite out of memory (tried first, alone)
    if (j["trials"][i]["status"] != "succeeded") {
      EXPECT_EQ(j["trials"][i]["failure"], "oom") << j["trials"][i].dump();
    }
    retries += j["trials"][i].value("retry_of", 0) == 1;
  }
  EXPECT_EQ(retries, 1);
}

// A job whose only pool refuses every job: after three trials that never
// started the pool is paused, and the session ends with the scheduler's
// reason instead of spending its budget of six.
TEST_F(slurm_pool_tune, a_pool_that_refuses_every_job_is_paused_and_the_session_ends_with_why) {
  const auto job = test::write_file(
    dir, "job.yaml",
    "name: llama3-8b-slurm\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
    "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
    "pools:\n" + sbatch_pool("gone", "no-such-partition", 1)
      + "trials: 6\nstop: budget\nsimulation: {train_iters: 8}\n");
  const auto r = test::run_program(
    {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
  EXPECT_EQ(r.status, 1) << r.out;
  const auto why = r.err.find("failed: no pool is left to run trials on: pool 'gone': 3 trials in "
                              "a row never started (last: ");
  ASSERT_NE(why, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvalid partition", why), std::string::npos) << r.err;
  int trial_dirs = 0;
  for (const auto& session : fs::directory_iterator(dir + "/pool/trials"))
    for ([[maybe_unused]] const auto& trial : fs::directory_iterator(session.path()))
      ++trial_dirs;
  EXPECT_EQ(trial_dirs, 3);
}

// Two pools, one of which refuses every job: its first three trials go out
// together, all three are refused, the pool is paused with Slurm's words
// (logged once), and the session finishes its budget on the other pool.
TEST_F(slurm_pool_tune, a_refusing_pool_is_paused_while_the_session_finishes_on_the_other) {
  const auto job = test::write_file(
    dir, "job.yaml",
    "name: llama3-8b-slurm\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
    "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
    "pools:\n" + sbatch_pool("gone", "no-such-partition", 3) + sbatch_pool("h100", "h100", 1)
      + "trials: 7\nstop: budget\nsimulation: {train_iters: 8}\n");
  const auto r = test::run_program(
    {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["trials"].size(), 7u) << j.dump();
  int refused = 0, measured = 0;
  for (const auto& t : j["trials"]) {
    if (t["pool"] == "gone") {
      ++refused;
      EXPECT_EQ(t["status"], "failed") << t.dump();
      EXPECT_NE(t["reason"].get<std::string>().find("nvalid partition"), std::string::npos);
    } else {
      EXPECT_EQ(t["pool"], "h100");
      measured += t["status"] == "succeeded";
    }
  }
  EXPECT_EQ(refused, 3);
  EXPECT_GE(measured, 3);
  const std::string paused = "paused pool 'gone': 3 trials in a row never started (last: ";
  const auto at = r.err.find(paused);
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvalid partition", at), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(paused, at + 1), std::string::npos) << "logged twice:\n" << r.err;
}

// A collective that never returns: nothing is printed after iteration 3;
// the hang limit ends the trial and scancel removes its job.
TEST_F(slurm_pool_tune, a_hung_trial_is_ended_and_its_job_cancelled) {
  const auto j = tune_pools(sbatch_pool("a100", "a100", 1,
                                        "--sim-failure-rate, \"0\", --sim-hang-at, \"4\""),
                            "trials: 1\nstop: budget\nsimulation: {train_iters: 50}\n"
                            "early_stop: {warmup: 2, stable_after: 40, hang_s: 3, wall_s: 600}\n",
                            1 /* nothing measured */);
  ASSERT_EQ(j["trials"].size(), 1u);
  const auto& t = j["trials"][0];
  EXPECT_EQ(t["status"], "failed") << t.dump();
  EXPECT_EQ(t["stop"], "hang") << t.dump();
  EXPECT_EQ(t["failure"], "nccl_timeout") << t.dump();
  EXPECT_LT(test::seconds_of(t["ended_at"]) - test::seconds_of(t["started_at"]), 60.0) << t.dump();
  const auto q = test::run_program({"/usr/bin/squeue", "-h", "-o", "%j", "-n",
                                    "paratune-" + j["session"].get<std::string>() + "-1"});
  EXPECT_EQ(q.status, 0) << q.err;
  EXPECT_EQ(q.out, "") << "the hung job is still queued or running";
}

/// The uid and permission bits of `path`.
std::pair<unsigned, unsigned> owner_and_mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return {unsigned(st.st_uid), unsigned(st.st_mode & 07777)};
}

/// A slurmrestd pool on slurm-local's Unix socket: its jobs run as
/// `slurmrest`, not as the root that runs paratune here.
std::string rest_pool(const std::string& workdir) {
  return "{name: a100, kind: slurm, partition: a100, via: slurmrestd, url: \""
         + std::string(std::getenv("PARATUNE_SLURM_REST_SOCKET")) + "\", capacity: 1,"
         + (workdir.empty() ? std::string() : " workdir: \"" + workdir + "\",");
}

bool can_act_for_the_rest_user() {
  return geteuid() == 0 && std::getenv("PARATUNE_SLURM_REST_SOCKET")
         && getpwnam("slurmrest") != nullptr;
}

// The documented flow over slurmrestd: paratune (root) makes each trial's
// directory under the pool's workdir for the job's user, slurmrest, who
// writes its output file there; paratune reads it back and the trials
// complete. Nothing goes under the pool's own trials/.
TEST_F(slurm_pool_tune, a_slurmrestd_job_running_as_another_user_writes_into_the_pools_workdir) {
  if (!can_act_for_the_rest_user())
    GTEST_SKIP() << "needs root and slurm-local's slurmrestd socket";
  if (!test::others_can_run(test::bin_dir() + "/paratune-sim"))
    GTEST_SKIP() << "the job runs as slurmrest, who cannot reach " << test::bin_dir()
                 << " (a checkout inside a folder others cannot search)";
  const auto shared = dir + "/shared";
  fs::create_directories(shared);
  const auto j = tune("trials: 2\nstop: budget\nsimulation: {train_iters: 8}\n", rest_pool(shared));
  ASSERT_EQ(j["trials"].size(), 2u) << j.dump();
  const auto session = j["session"].get<std::string>();
  const unsigned slurmrest = getpwnam("slurmrest")->pw_uid;
  EXPECT_EQ(owner_and_mode(shared + "/" + session), std::make_pair(0u, 0711u));
  for (int n = 1; n <= 2; ++n) {
    const auto& t = j["trials"][size_t(n - 1)];
    EXPECT_EQ(t["status"], "succeeded") << t.dump();
    const auto trial_dir = shared + "/" + session + "/" + std::to_string(n);
    EXPECT_EQ(owner_and_mode(trial_dir), std::make_pair(slurmrest, 0700u));
    int outputs = 0;
    for (const auto& f : fs::directory_iterator(trial_dir))
      if (f.path().filename().string().rfind("slurm-", 0) == 0) {
        ++outputs;
        EXPECT_EQ(owner_and_mode(f.path().string()), std::make_pair(slurmrest, 0644u));
      }
    EXPECT_EQ(outputs, 1) << trial_dir;
  }
  EXPECT_FALSE(fs::exists(dir + "/pool/trials/" + session));
}

// A command the node does not have: the job never starts it, and the
// trial's failure is bash's own line from the job's output file (read back
// from the workdir of a job that ran as slurmrest), not a bare status.
TEST_F(slurm_pool_tune, a_command_that_does_not_exist_fails_with_the_jobs_own_words) {
  if (!can_act_for_the_rest_user())
    GTEST_SKIP() << "needs root and slurm-local's slurmrestd socket";
  const auto shared = dir + "/shared";
  fs::create_directories(shared);
  const auto j = tune_pools("  - " + rest_pool(shared)
                              + "\n     launch: [/no/such/trainer, \"{megatron_args}\"]}\n",
                            "trials: 1\nstop: budget\nsimulation: {train_iters: 8}\n", 1);
  ASSERT_EQ(j["trials"].size(), 1u) << j.dump();
  const auto& t = j["trials"][0];
  EXPECT_EQ(t["status"], "failed");
  EXPECT_EQ(t["failure"], "launcher_error") << t.dump();
  const auto reason = t["reason"].get<std::string>();
  EXPECT_NE(reason.find("The job never reached training ("), std::string::npos) << reason;
  EXPECT_NE(reason.find("/slurm_script: line 5: /no/such/trainer: No such file or directory"),
            std::string::npos) << reason;
}

// Without a workdir the trial directories lie beside the pool, here in a
// 0700 directory slurmrest cannot enter: refused before any job is sent,
// naming the directory, instead of Slurm's bare JobLaunchFailure.
TEST_F(slurm_pool_tune, a_trial_directory_the_jobs_user_cannot_reach_is_refused_naming_it) {
  if (!can_act_for_the_rest_user())
    GTEST_SKIP() << "needs root and slurm-local's slurmrestd socket";
  chmod(dir.c_str(), 0700);
  const auto j = tune_pools("  - " + rest_pool("") + "\n     launch: [\"" + test::bin_dir()
                              + "/paratune-sim\", \"{megatron_args}\"]}\n",
                            "trials: 1\nstop: budget\nsimulation: {train_iters: 8}\n", 1);
  chmod(dir.c_str(), 0755);
  ASSERT_EQ(j["trials"].size(), 1u) << j.dump();
  const auto& t = j["trials"][0];
  EXPECT_EQ(t["failure"], "launcher_error") << t.dump();
  EXPECT_NE(t["reason"].get<std::string>().find(
              "pool 'a100': the pool's jobs run as user 'slurmrest', who cannot enter " + dir
              + " (mode 0700, owner root) to write trial directory " + dir + "/pool/trials/"),
            std::string::npos) << t.dump();
}

} // namespace
} // namespace paratune
