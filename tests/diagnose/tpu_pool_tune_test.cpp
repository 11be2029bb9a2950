// A MaxText experiment tuned on pools, as a GPU job is: paratune-tpu-sim's
// trainer stands in for MaxText's train.py behind a wrapper of the test's
// (the pool's launch template with {maxtext_args}), on a local pool and on
// a real Slurm (tools/slurm-local). Both show two runs at once, a run
// ended because it could no longer beat the best, and a run that lost a
// host (XLA's barrier timeout) run again.

#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/diagnose/diagnose_support.hpp"
#include "tests/e2e/local_slurm.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct tpu_pool_tune : ::testing::Test {
  void SetUp() override {
    test::use_source_configs();
    dir = test::make_temp_dir("tpu-pool");
  }
  void TearDown() override { fs::remove_all(dir); }

  /// The trainer a pool launches: trial 2 sleeps `slow_scale` per simulated
  /// second (it runs long enough for trial 1, the planner's fastest mesh,
  /// to end and be diagnosed first), the others 0.005; trial 3 loses a
  /// host, as a preempted TPU VM does.
  std::string wrapper(double slow_scale) {
    const auto exp = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
    const auto path = test::write_file(
        dir, "maxtext-train",
        "#!/bin/sh\n"
        "scale=0.005\n"
        "case \" $* \" in *' run_name=t2 '*) scale=" + std::to_string(slow_scale) + " ;; esac\n"
        "case \" $* \" in *' run_name=t3 '*)\n"
        "  echo 'jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. "
        "Id: t3_step_barrier::0. This usually happens because a task triggered the barrier too "
        "early or too slowly.' >&2\n"
        "  exit 1 ;;\n"
        "esac\n"
        "exec '" + test::bin_dir() + "/paratune-tpu-sim' train --time-scale \"$scale\" '" + exp
            + "' \"$@\"\n");
    chmod(path.c_str(), 0755);
    return path;
  }

  /// `paratune tune --json` on the v6e-16 experiment with `pool` as its pool.
  nlohmann::json tune(const std::string& pool) {
    std::ifstream in(test::asap_dir("v6e-16-hbm") + "/experiment.yaml");
    std::string text{std::istreambuf_iterator<char>(in), {}};
    const auto exp = test::write_file(dir, "experiment.yaml",
                                      text + "trials: 5\nsteps: 12\nearly_stop: true\npools:\n  - " + pool
                                          + "\n");
    const auto r = test::run_program(
        {test::bin_dir() + "/paratune", "tune", exp, "--db", dir + "/pool", "--json"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    return nlohmann::json::parse(r.out);
  }

  /// What every pool shows: fan-out, an early stop, a retried failure.
  void expect_the_loop(const nlohmann::json& j, const std::string& pool) {
    const auto& t = j["trials"];
    ASSERT_EQ(t.size(), 5u) << j.dump(1);
    for (const auto& row : t)
      EXPECT_EQ(row["pool"], pool);
    // Trials 1 and 2 ran at once: 2 started before 1 ended, and ended last.
    EXPECT_LT(t[1]["started_ms"].get<int64_t>(), t[0]["ended_ms"].get<int64_t>());
    EXPECT_LT(t[0]["ended_ms"].get<int64_t>(), t[1]["ended_ms"].get<int64_t>());
    // Trial 2 (the planner's second mesh) was ended once trial 1, measured
    // faster, was in: with what it measured until then, undiagnosed.
    EXPECT_FALSE(t[1]["stopped"].get<std::string>().empty()) << t[1].dump();
    EXPECT_EQ(t[1]["error"], "");
    EXPECT_GT(t[1]["step_time_ms"].get<double>(), t[0]["step_time_ms"].get<double>());
    EXPECT_EQ(t[1]["bottleneck"], "");
    EXPECT_EQ(t[0]["stopped"], "");
    EXPECT_FALSE(t[0]["bottleneck"].get<std::string>().empty());
    // Trial 3 lost a host; one later trial ran its mesh again and measured
    // it. Which one (4 or 5) depends on whether trial 2's stop freed its
    // slot before trial 3's failure came in, which a loaded scheduler
    // decides: a new mesh may take that slot first.
    EXPECT_NE(t[2]["error"].get<std::string>().find("DEADLINE_EXCEEDED: Barrier timed out"),
              std::string::npos)
        << t[2].dump();
    int retries = 0;
    for (size_t i = 3; i < t.size(); ++i) {
      if (t[i]["retry_of"] == 0)
        continue;
      ++retries;
      EXPECT_EQ(t[i]["retry_of"], 3) << t[i].dump();
      EXPECT_EQ(t[i]["mesh"], t[2]["mesh"]);
      EXPECT_EQ(t[i]["error"], "");
      EXPECT_GT(t[i]["step_time_ms"].get<double>(), 0);
    }
    EXPECT_EQ(retries, 1) << j.dump(1);
    ASSERT_TRUE(j.contains("best"));
    EXPECT_NE(j["best"]["trial"], 2);
    EXPECT_EQ(j["state"], "finished");
  }

  std::string dir;
};

TEST_F(tpu_pool_tune, a_local_pool_runs_two_at_once_stops_the_loser_and_retries_a_lost_host) {
  const auto j = tune("{name: v6e-local, kind: local, capacity: 2, launch: ['" + wrapper(0.2)
                      + "', '{maxtext_args}']}");
  expect_the_loop(j, "v6e-local");
  // Each run's profile is where MaxText's profiler puts it, under the
  // base_output_directory the template was given.
  const std::string session = j["session"];
  EXPECT_TRUE(fs::exists(dir + "/pool.runs/" + session + "/t1/tensorboard/plugins/profile"));
}

TEST_F(tpu_pool_tune, a_slurm_pool_does_the_same_with_batch_jobs) {
  if (!test::use_local_slurm())
    GTEST_SKIP() << test::no_local_slurm;
  // The jobs write under the pool's workdir, on the file system the nodes share.
  const auto work = dir + "/work";
  fs::create_directories(work);
  const auto j = tune("{name: v6e-slurm, kind: slurm, partition: a100, via: sbatch, capacity: 2, "
                      "workdir: '" + work + "', launch: ['" + wrapper(0.5)
                      + "', '{maxtext_args}']}");
  expect_the_loop(j, "v6e-slurm");
  const std::string session = j["session"];
  EXPECT_TRUE(fs::exists(work + "/" + session + "/t1/tensorboard/plugins/profile"));
  bool slurm_output = false;
  for (const auto& e : fs::directory_iterator(work + "/" + session + "/t1"))
    slurm_output |= e.path().filename().string().rfind("slurm-", 0) == 0;
  EXPECT_TRUE(slurm_output);
}

} // namespace
} // namespace paratune
