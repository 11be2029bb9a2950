// A Slurm pool with `relay: true` over a real Slurm (tools/slurm-local):
// each batch job runs the trial under paratune-relay, whose lines reach the
// validator through the relay ingress (TCP), signed with the trial's key. The relay is told to leave some lines
// unpublished (--drop-seq, through a relay_path wrapper); the validator's
// receiver fetches them again, and the trials score the same iterations as
// without the drops. Skipped when no local Slurm runs.

#include <cstdlib>
#include <filesystem>

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/e2e/local_slurm.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct slurm_relay_tune : ::testing::Test {
  void SetUp() override {
    if (!test::use_local_slurm())
      GTEST_SKIP() << test::no_local_slurm;
    dir = test::make_temp_dir("slurm-relay");
  }
  void TearDown() override {
    if (!dir.empty())
      fs::remove_all(dir);
  }

  /// `paratune tune --json` on partition a100 through the relay at
  /// `relay_path`, with the pool directory `db`; `extra`: the job's budget,
  /// simulation and early stop.
  nlohmann::json tune(const std::string& relay_path, const std::string& db,
                      const std::string& extra = "trials: 2\nstop: budget\nsimulation: {train_iters: 8}\n") {
    const auto job = test::write_file(
        dir, "job.yaml",
        "name: llama3-8b-relay\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
        "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
        + extra + "pools:\n"
        "  - {name: a100, kind: slurm, partition: a100, via: sbatch, relay: true,\n"
        "     relay_path: \"" + relay_path + "\",\n"
        "     launch: [\"" + test::bin_dir() + "/paratune-sim\", --sim-cluster, dgx-a100-80g,\n"
        "              --sim-world-size, \"{gpus_per_node}\", --sim-time-scale, \"0.002\",\n"
        "              --sim-failure-rate, \"0\", --sim-seed, \"{trial}\", \"{megatron_args}\"]}\n");
    const auto r = test::run_program(
        {test::bin_dir() + "/paratune", "tune", job, "--db", db, "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  /// A relay_path that runs paratune-relay with `options` before the rest.
  std::string relay_wrapper(const std::string& options) {
    const auto path = test::write_file(dir, "relay-wrapper",
                                       "#!/bin/sh\nexec \"" + test::bin_dir()
                                           + "/paratune-relay\" " + options + " \"$@\"\n");
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read
                              | fs::perms::group_exec | fs::perms::others_exec);
    return path;
  }

  std::string dir;
};

TEST_F(slurm_relay_tune, dropped_lines_are_recovered_and_the_trials_score_the_same) {
  const auto plain = tune(test::bin_dir() + "/paratune-relay", dir + "/plain");
  // Lines 3 and 9 (start-up and an iteration) and 14 go unpublished.
  const auto dropped = tune(relay_wrapper("--drop-seq 3,9,14"), dir + "/dropped");
  ASSERT_EQ(plain["trials"].size(), 2u);
  ASSERT_EQ(dropped["trials"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& p = plain["trials"][i];
    const auto& d = dropped["trials"][i];
    EXPECT_EQ(p["status"], "succeeded") << p.dump();
    EXPECT_EQ(d["status"], "succeeded") << d.dump();
    EXPECT_EQ(d["iterations_scored"], p["iterations_scored"]) << d.dump();
    EXPECT_GT(d["iterations_scored"].get<int>(), 0);
    ASSERT_TRUE(p.contains("relay") && d.contains("relay")) << d.dump();
    EXPECT_EQ(p["relay"]["gaps"], 0) << p.dump();
    // The lines came through the relay ingress, signed with the trial's key
    // (PARATUNE_RELAY_KEY in the job's environment), not from relay.log.
    EXPECT_EQ(p["relay"]["from_log"], 0) << p.dump();
    EXPECT_EQ(d["relay"]["gaps"], 3) << d.dump();
    EXPECT_EQ(d["relay"]["from_relay"].get<int>() + d["relay"]["from_log"].get<int>(), 3);
    EXPECT_EQ(d["relay"]["lost"], 0);
    EXPECT_EQ(d["relay"]["lines"], p["relay"]["lines"]);
    // Every line the relay numbered is in the trial's relay.log.
    const auto trial_dir = dir + "/dropped/trials/" + dropped["session"].get<std::string>() + "/"
                           + std::to_string(d["index"].get<int>());
    EXPECT_TRUE(fs::exists(trial_dir + "/relay.log")) << trial_dir;
  }
}

// An early stop cancels the job: scancel's SIGTERM reaches the relay, which
// passes it to the command and still publishes its end. The stop needs the
// lines as they come, so they passed the ingress while the job ran.
TEST_F(slurm_relay_tune, an_early_stop_cancels_the_relayed_job) {
  const auto j = tune(test::bin_dir() + "/paratune-relay", dir + "/pool",
                      "trials: 2\nstop: budget\nsimulation: {train_iters: 200}\n"
                      "early_stop: {warmup: 2, stable_after: 3, tolerance: 0.05}\n");
  ASSERT_EQ(j["trials"].size(), 2u);
  for (const auto& t : j["trials"]) {
    EXPECT_EQ(t["status"], "stopped") << t.dump();
    EXPECT_LT(t["iterations_scored"].get<int>(), 20) << t.dump();
    EXPECT_EQ(t["relay"]["lost"], 0) << t.dump();
  }
}

} // namespace
} // namespace paratune
