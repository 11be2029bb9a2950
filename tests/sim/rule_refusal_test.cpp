// paratune-sim refuses what Megatron-LM refuses, row by row of the rule
// table, as Megatron-LM does: the traceback on stderr ending in Python's
// exception line, exit status 1, no iteration. It takes every option
// Megatron-LM's parser defines and refuses the rest as argparse does.

#include <gtest/gtest.h>

#include "core/megatron_args.hpp"
#include "core/megatron_rule_table.hpp"
#include "tests/fixtures/megatron_rule_cases.hpp"
#include "tests/sim/sim_process.hpp"

namespace paratune::test {
namespace {

class sim_rules : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::filesystem::exists(sim_path()))
      GTEST_SKIP() << "paratune-sim not built in " << bin_dir();
  }
};

std::vector<std::string> sim_args(int world, std::vector<std::string> megatron) {
  std::vector<std::string> out{"--sim-world-size", std::to_string(world), "--sim-failure-rate",
                               "0"};
  out.insert(out.end(), megatron.begin(), megatron.end());
  return out;
}

TEST_F(sim_rules, each_row_of_the_table_is_refused_with_megatrons_exception) {
  for (const auto& rc : megatron_rule_cases()) {
    SCOPED_TRACE(rc.rule);
    // The sim's cluster is an A100's (device arch 8): the rules read the same.
    const auto r = run_sim(sim_args(rc.world_size, rule_case_args(rc)),
                           {{"CUDA_DEVICE_MAX_CONNECTIONS", rc.max_connections}});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("[rank0]: Traceback (most recent call last):\n"), std::string::npos);
    EXPECT_NE(r.err.find("[rank0]: " + rc.python_line + "\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("pretrain_gpt.py FAILED"), std::string::npos);
    EXPECT_TRUE(r.log.iterations.empty());
    ASSERT_FALSE(r.log.errors.empty());
    EXPECT_EQ(r.log.errors.front().kind, log_error_kind::config_invalid) << r.err;
    // The guard reads the same command line the same way.
    const auto guard = check_megatron_launch(rule_case_launch(rc), rc.world_size);
    ASSERT_FALSE(guard.empty());
    EXPECT_EQ(guard.front().rule, rc.rule);
    EXPECT_EQ(guard.front().python_line(), rc.python_line);
  }
}

TEST_F(sim_rules, evaluate_names_the_refusal_without_running) {
  const auto& rc = megatron_rule_cases().front();
  auto args = sim_args(rc.world_size, rule_case_args(rc));
  args.insert(args.end(), {"--evaluate", "--json"});
  const auto r = run_sim(args);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\"valid\": false"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("world size (8) is not divisible by total_model_size"), std::string::npos);
}

TEST_F(sim_rules, command_lines_megatron_accepts_start) {
  for (const auto& [name, more] : megatron_accepted_cases()) {
    SCOPED_TRACE(name);
    auto args = sim_args(8, rule_case_base_args());
    args.insert(args.end(), more.begin(), more.end());
    args.insert(args.end(), {"--evaluate", "--json"});
    const auto r = run_sim(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"valid\": true"), std::string::npos) << r.out;
  }
}

TEST_F(sim_rules, every_option_megatrons_parser_defines_is_taken) {
  // The flags docs/jobs.md's launch template and NVIDIA's examples pass,
  // which paratune-sim does not model, in both argparse spellings.
  auto args = sim_args(8, rule_case_base_args());
  args.insert(args.end(),
              {"--mock-data", "--tokenizer-type", "NullTokenizer", "--eval-iters", "1",
               "--eval-interval=100", "--position-embedding-type", "rope", "--rotary-base",
               "500000", "--disable-bias-linear", "--lr", "3e-4", "--min-lr=3e-5",
               "--data-path", "1.0", "/data/a_text_document", "--split", "99,1,0",
               "--attention-backend", "auto", "--rampup-batch-size", "32", "32", "1000",
               "--tensor-model-parallel-size", "2", "--evaluate", "--json"});
  const auto r = run_sim(args);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"valid\": true"), std::string::npos) << r.out;
}

TEST_F(sim_rules, an_option_megatron_does_not_know_is_an_argparse_error) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--foo"}, {"--mock-data", "--foo", "1"},
        {"--tokenizer-typ", "NullTokenizer"}, {"stray"}}) {
    auto args = sim_args(8, rule_case_base_args());
    args.insert(args.end(), bad.begin(), bad.end());
    const auto r = run_sim(args);
    EXPECT_EQ(r.status, 2) << bad.front();
    EXPECT_NE(r.err.find("usage: pretrain_gpt.py"), std::string::npos);
    const std::string said = bad.front() == "--mock-data" ? "--foo 1" : bad.front();
    EXPECT_NE(r.err.find("pretrain_gpt.py: error: unrecognized arguments: " + said),
              std::string::npos)
      << r.err;
  }
  // A switch given a value, and an option missing its value.
  auto sw = sim_args(8, rule_case_base_args());
  sw.push_back("--mock-data=1");
  EXPECT_EQ(run_sim(sw).status, 2);
  auto missing = sim_args(8, rule_case_base_args());
  missing.push_back("--eval-iters");
  const auto r = run_sim(missing);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("argument --eval-iters: expected one argument"), std::string::npos) << r.err;
}

TEST_F(sim_rules, tensor_parallelism_needs_one_kernel_queue_before_blackwell) {
  // Checked against Megatron-LM's validate_args (arguments.py:1477) with
  // get_device_arch_version() 8, 9 and 10: refused unless the variable is
  // exactly "1", on A100 and H100; Blackwell does not ask.
  auto evaluate = [](std::vector<std::string> more, const char* queues,
                     const std::string& cluster = "dgx-a100-80g") {
    auto args = sim_args(8, rule_case_base_args());
    args.insert(args.end(), more.begin(), more.end());
    args.insert(args.end(), {"--sim-cluster", cluster, "--evaluate", "--json"});
    return run_sim(args, {{"CUDA_DEVICE_MAX_CONNECTIONS", queues}});
  };
  const std::string refusal = "Using tensor model parallelism or context parallelism require "
                              "setting the environment variable CUDA_DEVICE_MAX_CONNECTIONS to 1";
  const std::vector<std::string> tp2{"--tensor-model-parallel-size", "2"};
  for (const auto* cluster : {"dgx-a100-80g", "dgx-h100"})
    for (const char* queues : {static_cast<const char*>(nullptr), "8", "32"}) {
      SCOPED_TRACE(std::string(cluster) + " " + (queues ? queues : "unset"));
      const auto r = evaluate(tp2, queues, cluster);
      EXPECT_NE(r.out.find("\"valid\": false"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(refusal), std::string::npos) << r.out;
    }
  const auto cp = evaluate({"--context-parallel-size", "2"}, nullptr);
  EXPECT_NE(cp.out.find(refusal), std::string::npos) << cp.out;
  EXPECT_NE(evaluate(tp2, "1").out.find("\"valid\": true"), std::string::npos);
  EXPECT_NE(evaluate({}, nullptr).out.find("\"valid\": true"), std::string::npos);
  // The expert-overlap flag only warns about the variable.
  const auto moe_overlap = evaluate({"--tensor-model-parallel-size", "2",
                                     "--overlap-moe-expert-parallel-comm"}, nullptr);
  EXPECT_EQ(moe_overlap.out.find(refusal), std::string::npos) << moe_overlap.out;

  const auto dir = ::testing::TempDir() + "paratune_blackwell";
  std::filesystem::create_directories(dir);
  const auto b200 = write_file(dir, "dgx-b200.yaml",
                               "name: dgx-b200\n"
                               "devices_per_node: 8\n"
                               "device: {name: B200, peak_tflops_16: 2250, hbm_gib: 180, "
                               "hbm_gbps: 8000, compute_capability: 10.0}\n"
                               "scale_up: {name: NVLink5, gbps: 900}\n"
                               "scale_out: {name: IB-XDR, gbps: 100}\n");
  const auto blackwell = evaluate(tp2, nullptr, b200);
  EXPECT_NE(blackwell.out.find("\"valid\": true"), std::string::npos) << blackwell.out << blackwell.err;

  // Run, not evaluated: Megatron-LM's traceback and exit status 1.
  auto args = sim_args(8, rule_case_base_args());
  args.insert(args.end(), tp2.begin(), tp2.end());
  const auto run = run_sim(args, {{"CUDA_DEVICE_MAX_CONNECTIONS", nullptr}});
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("[rank0]: AssertionError: " + refusal + "\n"), std::string::npos) << run.err;
}

TEST_F(sim_rules, sequence_parallel_without_tp_runs_without_it) {
  // validate_args turns it off and goes on; the sim runs, as Megatron-LM does.
  auto args = sim_args(8, rule_case_base_args());
  args.insert(args.end(), {"--sequence-parallel", "--evaluate", "--json"});
  const auto r = run_sim(args);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\"valid\": true"), std::string::npos) << r.out;
}

} // namespace
} // namespace paratune::test
