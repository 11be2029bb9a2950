// Tuning over a real Slurm (tools/slurm-local): trials submitted by sbatch
// or slurmrestd as batch scripts that exec the rendered launch template, their output
// followed from the job's file, and stopped early by scancel. Skipped when
// no local Slurm runs (CI starts one).

#include <cstdlib>

#include <sys/stat.h>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct slurm_pool_tune : ::testing::Test {
  void SetUp() override {
    const char* conf = std::getenv("PARATUNE_SLURM_CONF");
    if (!conf || !*conf)
      GTEST_SKIP() << "no local Slurm: tools/slurm-local start; eval \"$(tools/slurm-local env)\"";
    setenv("SLURM_CONF", conf, 1); // what sbatch, scontrol and scancel read
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
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

  std::string dir;
};

TEST_F(slurm_pool_tune, trials_run_as_batch_jobs_on_the_partition) {
  const auto j = tune("trials: 3\nsimulation: {train_iters: 8}\n");
  ASSERT_EQ(j["trials"].size(), 3u);
  int succeeded = 0;
  for (const auto& t : j["trials"]) {
    EXPECT_EQ(t["pool"], "a100") << t.dump();
    succeeded += t["status"] == "succeeded";
    // The batch job wrote its output beside the script Slurm ran.
    const auto trial_dir = dir + "/pool/trials/" + j["session"].get<std::string>() + "/"
                           + std::to_string(t["index"].get<int>());
    bool output = false;
    for (const auto& e : fs::directory_iterator(trial_dir))
      output = output || e.path().filename().string().rfind("slurm-", 0) == 0;
    EXPECT_TRUE(output) << trial_dir;
  }
  EXPECT_GE(succeeded, 2);
}

// slurmrestd's Unix socket (rest_auth/local): the jobs run as slurmrestd's
// user, so what they read and write must be theirs to reach: the test puts
// the simulator and its cluster file in a world-readable folder and makes
// the trial directories world-writable (umask 0 for paratune, which makes
// them).
TEST_F(slurm_pool_tune, trials_run_over_slurmrestd) {
  const char* socket = std::getenv("PARATUNE_SLURM_REST_SOCKET");
  ASSERT_TRUE(socket && *socket);
  fs::permissions(dir, fs::perms::all);
  fs::copy_file(test::bin_dir() + "/paratune-sim", dir + "/paratune-sim");
  fs::copy_file(test::source_dir() + "/configs/clusters/dgx-a100-80g.yaml", dir + "/cluster.yaml");
  const mode_t old = umask(0);
  const auto j = tune("trials: 2\nsimulation: {train_iters: 8}\n",
                      std::string("{name: h100, kind: slurm, partition: h100, via: slurmrestd, url: \"")
                          + socket + "\",",
                      dir + "/paratune-sim", dir + "/cluster.yaml");
  umask(old);
  ASSERT_EQ(j["trials"].size(), 2u);
  for (const auto& t : j["trials"]) {
    EXPECT_EQ(t["pool"], "h100") << t.dump();
    EXPECT_EQ(t["status"], "succeeded") << t.dump();
  }
}

TEST_F(slurm_pool_tune, an_early_stop_cancels_the_job) {
  const auto j = tune("trials: 2\nsimulation: {train_iters: 200}\n"
                      "early_stop: {warmup: 2, stable_after: 3, tolerance: 0.05}\n");
  ASSERT_EQ(j["trials"].size(), 2u);
  for (const auto& t : j["trials"]) {
    EXPECT_EQ(t["status"], "stopped") << t.dump();
    EXPECT_LT(t["iterations_scored"].get<int>(), 20) << t.dump();
  }
}

} // namespace
} // namespace paratune
