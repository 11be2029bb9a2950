// `paratune tune` run from another working directory: the job's relative
// model and cluster files are the ones beside the job; a key given twice
// exits 2 with both lines.

#include <gtest/gtest.h>

#include <filesystem>

#include "adapters/config/catalog.hpp"
#include "tests/cli/run_paratune.hpp"
#include "tests/fixtures/job_folders.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct job_paths_cli : test::paratune_cli {
  void SetUp() override {
    test::paratune_cli::SetUp();
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    dir = test::make_temp_dir("job-paths-cli");
  }
  void TearDown() override { fs::remove_all(dir); }

  /// `paratune ARGS` run from `cwd`.
  test::run_result paratune_in(const std::string& cwd, const std::string& args) {
    return test::run_shell("cd '" + cwd + "' && '" + test::paratune_exe() + "' " + args);
  }

  std::string dir;
};

TEST_F(job_paths_cli, tune_reads_the_model_and_cluster_beside_the_job_not_in_the_working_dir) {
  const test::job_folders folders{dir};
  folders.write_job("job.yaml", "models/my.yaml", "clusters/mine.yaml",
                    "simulation: {seed: 3, train_iters: 8, time_scale: 0.0001}\n");
  const auto r = paratune_in(folders.cwd, "tune ../jobs/job.yaml --trials 1 --db '" + dir + "/pool'");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto cluster = load_cluster("dgx-h100");
  EXPECT_NE(r.out.find(": job-folder-model on 8 x " + cluster.device.name + " (" + cluster.name
                       + "), a budget of 1 trial,"),
            std::string::npos)
    << r.out;
  EXPECT_EQ(r.out.find("cwd-model"), std::string::npos) << r.out;
}

TEST_F(job_paths_cli, a_key_given_twice_exits_2_naming_both_lines) {
  const test::job_folders folders{dir};
  const auto job = folders.write_job("twice.yaml", "llama3-8b", "dgx-a100-80g",
                                     "simulation:\n  seed: 7\n  seed: 8\n");
  for (const char* command : {"tune", "submit"}) {
    const auto r = paratune_in(folders.cwd, std::string(command) + " " + job);
    EXPECT_EQ(r.status, 2) << command << r.out;
    EXPECT_EQ(r.err, "error: " + job + ": line 9: key 'seed' appears twice (first on line 8)\n")
      << command;
  }
}

TEST_F(job_paths_cli, a_key_given_twice_in_the_model_file_beside_the_job_names_that_file) {
  const test::job_folders folders{dir};
  test::write_file(folders.jobs + "/models", "my.yaml",
                   test::small_model_yaml("job-folder-model", 24) + "heads: 7\n");
  const auto job = folders.write_job("job.yaml", "models/my.yaml", "dgx-a100-80g");
  const auto r = paratune_in(folders.cwd, "tune " + job + " --db '" + dir + "/pool'");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: " + job + ": " + folders.jobs
                     + "/models/my.yaml: line 10: key 'heads' appears twice (first on line 5)\n");
}

} // namespace
} // namespace paratune
