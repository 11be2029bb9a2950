// `paratune export --format sbatch`: the best trial's production run as a
// batch script, submitted as written to a real Slurm (tools/slurm-local)
// with paratune-sim standing in for pretrain_gpt.py. Skipped when no local
// Slurm runs.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/e2e/local_slurm.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(sbatch_export, the_script_passes_bash_n_and_trains_on_slurm_as_written) {
  if (!test::use_local_slurm())
    GTEST_SKIP() << test::no_local_slurm;
  const auto dir = test::make_temp_dir("sbatch-export");
  // One trial on a Slurm pool whose template runs paratune-sim on mock
  // data, one task per node (torchrun's shape), with a secret in paratune's
  // environment that the script must name and never hold.
  const auto job = test::write_file(
    dir, "job.yaml",
    "name: llama3-0.5b-export\nmodel: llama3-0.5b\ncluster: dgx-a100-80g\nnodes: 1\n"
    "precision: bf16\ntrials: 1\nstop: budget\nsimulation: {train_iters: 8}\n"
    "initial: {tp: 2, pp: 1, mbs: 1, gbs: 64, seq: 2048, recompute: none}\n"
    "secret_env: [PARATUNE_EXPORT_SECRET]\nenv: {NCCL_DEBUG: WARN}\n"
    "pools:\n"
    "  - {name: a100, kind: slurm, partition: a100, tasks: per_node, time: \"00:10:00\",\n"
    "     launch: [\"" + test::bin_dir() + "/paratune-sim\", --sim-cluster, dgx-a100-80g,\n"
    "              --sim-world-size, \"{gpus_per_node}\", --sim-time-scale, \"0.002\",\n"
    "              --sim-failure-rate, \"0\", --sim-seed, \"{trial}\", \"{megatron_args}\",\n"
    "              --mock-data, --tokenizer-type, NullTokenizer, --eval-iters, \"0\"]}\n");
  const char* secret = "s3cr3t-value-never-in-a-script";
  const auto tuned = test::run_program(
    {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"},
    {{"PARATUNE_EXPORT_SECRET", secret}});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const auto id = nlohmann::json::parse(tuned.out).at("session").get<std::string>();

  const auto exported =
    test::run_program({test::bin_dir() + "/paratune", "export", id, "--db", dir + "/pool",
                       "--format", "sbatch"});
  ASSERT_EQ(exported.status, 0) << exported.err;
  const auto& script = exported.out;
  const auto path = test::write_file(dir, "best.sbatch", script);
  const auto syntax = test::run_program({"/bin/bash", "-n", path});
  EXPECT_EQ(syntax.status, 0) << syntax.err << "\n" << script;
  for (const char* line :
       {"#!/bin/bash\n", "#SBATCH --nodes=1\n", "#SBATCH --ntasks-per-node=1\n",
        "#SBATCH --partition=a100\n", "#SBATCH --time=10\n",
        "export DATA_PATH=\"${DATA_PATH:-FILL-IN}\"\n", "export TOKENIZER_MODEL=\"${TOKENIZER_MODEL:-FILL-IN}\"\n",
        "export CHECKPOINT_DIR=\"${CHECKPOINT_DIR:-FILL-IN}\"\n", "export TRAIN_ITERS=\"${TRAIN_ITERS:-FILL-IN}\"\n",
        "export NCCL_DEBUG=WARN\n", "export CUDA_DEVICE_MAX_CONNECTIONS=1\n",
        "export MASTER_PORT=", "srun --nodes=\"$SLURM_JOB_NUM_NODES\" --ntasks-per-node=1 ",
        "--data-path \"${DATA_PATH}\"", "--save \"${CHECKPOINT_DIR}\" --load \"${CHECKPOINT_DIR}\"",
        "--train-iters \"${TRAIN_ITERS}\"", "--tensor-model-parallel-size 2 ",
        "never written:\n# PARATUNE_EXPORT_SECRET"})
    EXPECT_NE(script.find(line), std::string::npos) << line << "\n" << script;
  // The tuning run's own flags and its mock data are gone; the secret's value never came.
  for (const char* gone : {"--mock-data", "NullTokenizer", "--train-iters 8", "--log-interval",
                           "--log-throughput", secret})
    EXPECT_EQ(script.find(gone), std::string::npos) << gone << "\n" << script;

  // Run as written with a placeholder left: it stops before anything starts.
  const auto unfilled = test::run_program({"/bin/bash", path});
  EXPECT_EQ(unfilled.status, 2);
  EXPECT_NE(unfilled.err.find("error: DATA_PATH is still FILL-IN"), std::string::npos)
    << unfilled.err;

  // Filled from the environment sbatch passes, it trains on Slurm.
  const auto out = dir + "/production-%j.out";
  const auto submitted = test::run_program(
    {"/usr/bin/env", "DATA_PATH=" + dir + "/data/corpus_text_document",
     "TOKENIZER_MODEL=" + dir + "/tokenizer", "CHECKPOINT_DIR=" + dir + "/checkpoints",
     "TRAIN_ITERS=6", "sbatch", "--wait", "--parsable", "--chdir", dir, "--output", out, path});
  ASSERT_EQ(submitted.status, 0) << submitted.out << submitted.err;
  std::string job_id = submitted.out.substr(0, submitted.out.find_first_of(";\n"));
  const auto log = read_all(dir + "/production-" + job_id + ".out");
  EXPECT_NE(log.find(" iteration        6/       6 |"), std::string::npos) << log;
  EXPECT_EQ(log.find(" iteration        7/"), std::string::npos) << log;
  // Six iterations trained, each with its loss; no --log-throughput: the
  // production run does not carry the tuning run's measuring flags.
  const std::regex trained(" iteration +[1-6]/ +6 \\|.*\\| lm loss: [0-9.E+-]+ \\|");
  EXPECT_EQ(std::distance(std::sregex_iterator(log.begin(), log.end(), trained),
                          std::sregex_iterator()),
            6) << log;
  EXPECT_EQ(log.find("throughput per GPU"), std::string::npos) << log;
  EXPECT_NE(log.find("exiting program at iteration 6"), std::string::npos) << log;
  fs::remove_all(dir);
}

} // namespace
} // namespace paratune
