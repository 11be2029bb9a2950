// Early stopping in a real tuning session: paratune tune with an
// early_stop policy, trials of paratune-sim as child processes, ended by
// the validator as soon as their answer is known.

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string early_stop_job_text(const char* early_stop) {
  return std::string("name: llama3-8b-early-stop\nmodel: llama3-8b\ncluster: dgx-a100-80g\n"
                     "nodes: 1\nprecision: fp16\n"
                     "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
                     "trials: 8\nstop: budget\nsimulation: {seed: 7, train_iters: 40}\n")
         + early_stop;
}

nlohmann::json tune_early_stop(const std::string& dir, const char* early_stop) {
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  const auto job = test::write_file(dir, "job.yaml", early_stop_job_text(early_stop));
  const auto r = test::run_program(
      {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(early_stop_tune, trials_end_once_stable_or_beaten_and_say_why) {
  const auto dir = test::make_temp_dir("early-stop");
  const auto j = tune_early_stop(dir, "early_stop: {warmup: 2, stable_after: 4, tolerance: 0.05, rung: true}\n");
  ASSERT_EQ(j["trials"].size(), 8u);
  int stable = 0, beaten = 0;
  for (const auto& t : j["trials"]) {
    ASSERT_TRUE(t["started_at"].is_string()) << t.dump();
    ASSERT_TRUE(t["ended_at"].is_string()) << t.dump();
    EXPECT_LE(t["started_at"].get<std::string>(), t["ended_at"].get<std::string>());
    if (t["status"] != "stopped")
      continue;
    EXPECT_FALSE(t["reason"].get<std::string>().empty());
    // 40 iterations ran before; a stopped trial scored far fewer.
    EXPECT_LT(t["iterations_scored"].get<int>(), 20) << t.dump();
    if (t["stop"] == "stable") {
      ++stable;
      EXPECT_EQ(t["reason"].get<std::string>().rfind("stable: the last 4 iterations lie within", 0), 0u);
      EXPECT_GT(t["tflops_per_gpu"].get<double>(), 0);
    } else if (t["stop"] == "cannot_beat_incumbent") {
      ++beaten;
      EXPECT_EQ(t["reason"].get<std::string>().rfind("cannot beat the incumbent: ", 0), 0u);
    }
  }
  EXPECT_GE(stable, 1);
  EXPECT_GE(stable + beaten, 4);
  EXPECT_GT(j["best"]["tflops_per_gpu"].get<double>(), 0);
  fs::remove_all(dir);
}

TEST(early_stop_tune, a_bad_policy_is_refused_naming_the_key) {
  const auto dir = test::make_temp_dir("early-stop-bad");
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  const auto job = test::write_file(dir, "job.yaml", early_stop_job_text("early_stop: {tolerance: 2}\n"));
  const auto r = test::run_program({test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: " + job + ": early_stop: line 10: field 'tolerance': 2 is outside the allowed "
                                     "range 0.0001..1\n");
  const auto typo = test::write_file(dir, "typo.yaml", early_stop_job_text("early_stop: {stable: 3}\n"));
  const auto t = test::run_program({test::bin_dir() + "/paratune", "tune", typo, "--db", dir + "/pool"});
  EXPECT_EQ(t.status, 2);
  EXPECT_EQ(t.err, "error: " + typo + ":10: early_stop: unknown key 'stable' (known: warmup, "
                                      "stable_after, tolerance, rung, hang_s, wall_s)\n");
  const auto near = test::write_file(dir, "near.yaml",
                                     early_stop_job_text("early_stop: {stable_afte: 3}\n"));
  const auto n = test::run_program({test::bin_dir() + "/paratune", "tune", near, "--db", dir + "/pool"});
  EXPECT_EQ(n.status, 2);
  EXPECT_EQ(n.err, "error: " + near + ":10: early_stop: unknown key 'stable_afte' (did you mean "
                                      "'stable_after'?)\n");
  EXPECT_FALSE(fs::exists(dir + "/pool"));
  fs::remove_all(dir);
}

} // namespace
} // namespace paratune
