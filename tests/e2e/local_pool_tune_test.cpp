// A local pool: the job's own launch template, rendered per trial into an
// argv and run as a real child process (here paratune-sim standing in for
// torchrun ... pretrain_gpt.py), with the trial's directory made first.

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

TEST(local_pool_tune, trials_run_the_rendered_launch_template) {
  const auto dir = test::make_temp_dir("local-pool");
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  const auto sim = test::bin_dir() + "/paratune-sim";
  const auto job = test::write_file(
      dir, "job.yaml",
      "name: llama3-8b-local\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
      "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
      "trials: 4\nstop: budget\n"
      "pools:\n"
      "  - {name: gpu-box, kind: local, capacity: 1,\n"
      "     launch: [\"" + sim + "\", --sim-cluster, dgx-a100-80g, --sim-world-size,\n"
      "              \"{gpus_per_node}\", --sim-time-scale, \"0\", --sim-failure-rate, \"0\",\n"
      "              --sim-seed, \"{trial}\", \"{megatron_args}\"]}\n");
  const auto r = test::run_program(
      {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["trials"].size(), 4u);
  int succeeded = 0;
  for (const auto& t : j["trials"]) {
    EXPECT_EQ(t["pool"], "gpu-box") << t.dump();
    succeeded += t["status"] == "succeeded";
    const auto trial_dir =
        dir + "/pool/trials/" + j["session"].get<std::string>() + "/" + std::to_string(t["index"].get<int>());
    EXPECT_TRUE(fs::is_directory(trial_dir)) << trial_dir;
  }
  EXPECT_GE(succeeded, 3);
  EXPECT_GT(j["best"]["tflops_per_gpu"].get<double>(), 0);
  fs::remove_all(dir);
}

} // namespace
} // namespace paratune
