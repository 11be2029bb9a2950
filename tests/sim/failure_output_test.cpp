// paratune-sim fails as real clusters fail: CUDA OOM when the true peak
// exceeds the device, Megatron's assertion text for invalid layouts,
// injected NCCL watchdog timeouts and lost nodes, argparse errors; each
// read back by the Megatron-LM log parser.

#include <gtest/gtest.h>

#include "sim/gpu/simulated_cluster.hpp"
#include "tests/sim/sim_process.hpp"

namespace paratune::test {
namespace {

class sim_failure : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::filesystem::exists(sim_path()))
      GTEST_SKIP() << "paratune-sim not built in " << bin_dir();
  }
};

std::vector<std::string> layout(const std::string& tp, const std::string& pp,
                                const std::string& mbs, const std::string& version) {
  return with(llama3_8b_args(),
              {"--tensor-model-parallel-size", tp, "--pipeline-model-parallel-size", pp,
               "--micro-batch-size", mbs, "--train-iters", "6", "--sim-failure-rate", "0",
               "--sim-megatron-version", version});
}

TEST_F(sim_failure, a_configuration_that_cannot_fit_runs_out_of_memory) {
  // Llama3-8B unsplit with micro batch 4 and every activation kept: OptiCo
  // Figure 5's TP 1 PP 1 already failed at micro batch 1.
  const auto r = run_sim(layout("1", "1", "4", "0.15"));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.log.iterations.empty());
  ASSERT_FALSE(r.log.errors.empty()) << r.out;
  EXPECT_EQ(r.log.errors.front().kind, log_error_kind::oom);
  EXPECT_NE(r.log.errors.front().message.find(
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate"),
            std::string::npos)
    << r.log.errors.front().message;
  EXPECT_NE(r.out.find("GPU 0 has a total capacity of 79.15 GiB"), std::string::npos);
  EXPECT_NE(r.out.find("Root Cause (first observed failure):"), std::string::npos);
  // PyTorch of the 0.8 era names the exception torch.cuda.OutOfMemoryError.
  const auto old = run_sim(layout("1", "1", "4", "0.8"));
  ASSERT_FALSE(old.log.errors.empty());
  EXPECT_EQ(old.log.errors.front().kind, log_error_kind::oom);
  EXPECT_NE(old.out.find("torch.cuda.OutOfMemoryError: CUDA out of memory."), std::string::npos);
}

TEST_F(sim_failure, an_invalid_layout_prints_megatrons_assertion) {
  const auto r = run_sim(layout("3", "1", "1", "0.15"));
  EXPECT_EQ(r.status, 1);
  ASSERT_FALSE(r.log.errors.empty()) << r.out;
  EXPECT_EQ(r.log.errors.front().kind, log_error_kind::config_invalid);
  // Python's traceback goes to stderr, and nothing of it to stdout.
  EXPECT_NE(r.err.find("[rank0]: AssertionError: world size (8) is not divisible by "
                       "total_model_size (total_model_size=3)\n"),
            std::string::npos)
    << r.err;
  EXPECT_EQ(r.out.find("AssertionError"), std::string::npos) << r.out;
  EXPECT_TRUE(r.log.iterations.empty());
  // Core 0.6 wording, used for 0.5 and 0.8: TP alone is checked first.
  const auto old = run_sim(layout("3", "1", "1", "0.5"));
  ASSERT_FALSE(old.log.errors.empty());
  EXPECT_EQ(old.log.errors.front().kind, log_error_kind::config_invalid);
  EXPECT_NE(old.err.find("AssertionError: world size (8) is not divisible by tensor model "
                         "parallel size (3)"),
            std::string::npos)
    << old.err;
  const auto layers = run_sim(layout("1", "3", "1", "0.8")); // 32 layers, 3 stages; 8 % 3 too
  EXPECT_NE(layers.err.find("times pipeline parallel size (3) times context parallel size (1)"),
            std::string::npos)
    << layers.err;
}

TEST_F(sim_failure, heads_that_tensor_parallelism_cannot_split_raise_value_error) {
  // A 0.5B model with 14 heads on TP 4.
  const auto r = run_sim({"--sim-world-size", "8", "--num-layers", "24", "--hidden-size", "896",
                          "--ffn-hidden-size", "4864", "--num-attention-heads", "14",
                          "--vocab-size", "32000", "--seq-length", "4096",
                          "--global-batch-size", "256", "--micro-batch-size", "1",
                          "--tensor-model-parallel-size", "4", "--train-iters", "6"});
  EXPECT_EQ(r.status, 1);
  ASSERT_FALSE(r.log.errors.empty()) << r.out;
  EXPECT_EQ(r.log.errors.front().kind, log_error_kind::config_invalid);
  EXPECT_NE(r.err.find("[rank0]: ValueError: num_attention_heads (14) must be a multiple of "
                       "tensor_model_parallel_size (4)."),
            std::string::npos)
    << r.err;
}

TEST_F(sim_failure, query_groups_that_tp_only_divides_start_on_head_but_not_on_0_5) {
  auto args = [](const std::string& version) {
    return std::vector<std::string>{
      "--sim-world-size", "8", "--num-layers", "16", "--hidden-size", "2048",
      "--ffn-hidden-size", "8192", "--num-attention-heads", "32", "--group-query-attention",
      "--num-query-groups", "2", "--vocab-size", "32000", "--seq-length", "2048",
      "--global-batch-size", "64", "--micro-batch-size", "1", "--tensor-model-parallel-size",
      "4", "--train-iters", "4", "--sim-failure-rate", "0", "--sim-megatron-version", version};
  };
  const auto head = run_sim(args("0.15"));
  EXPECT_EQ(head.status, 0) << head.out;
  const auto old = run_sim(args("0.5"));
  EXPECT_EQ(old.status, 1);
  EXPECT_NE(old.err.find("ValueError: num_query_groups (2) must be a multiple of "
                         "tensor_model_parallel_size (4)."),
            std::string::npos)
    << old.err;
}

/// A seed whose run draws the wanted injected failure at rate 1.
uint64_t seed_for(injected_failure_kind kind) {
  simulated_outcome any;
  any.truth.iteration_time_s = 1;
  for (uint64_t seed = 1; seed < 100; ++seed)
    if (simulated_run(any, seed, 1.0, 6, 8).failure().kind == kind)
      return seed;
  return 0;
}

TEST_F(sim_failure, injected_nccl_timeout_prints_the_watchdog) {
  const uint64_t seed = seed_for(injected_failure_kind::nccl_timeout);
  ASSERT_GT(seed, 0u);
  for (const char* version : {"0.5", "0.16"}) {
    auto args = layout("8", "1", "1", version);
    args.insert(args.end(), {"--sim-failure-rate", "1", "--sim-seed", std::to_string(seed)});
    const auto r = run_sim(args);
    EXPECT_EQ(r.status, 1);
    ASSERT_FALSE(r.log.errors.empty()) << r.out;
    EXPECT_EQ(r.log.errors.front().kind, log_error_kind::nccl_timeout) << version;
    EXPECT_NE(r.out.find("Watchdog caught collective operation timeout: WorkNCCL(SeqNum="),
              std::string::npos);
    EXPECT_GE(r.log.iterations.size(), 2u) << "the timeout comes after warm-up";
    EXPECT_LT(r.log.iterations.size(), 6u);
  }
}

TEST_F(sim_failure, injected_node_failure_aborts_the_communicator) {
  const uint64_t seed = seed_for(injected_failure_kind::node_failure);
  ASSERT_GT(seed, 0u);
  auto args = layout("8", "1", "1", "0.15");
  args.insert(args.end(), {"--sim-failure-rate", "1", "--sim-seed", std::to_string(seed)});
  const auto r = run_sim(args);
  EXPECT_EQ(r.status, 1);
  ASSERT_FALSE(r.log.errors.empty()) << r.out;
  EXPECT_NE(r.log.errors.front().message.find("remote process exited or there was a network error"),
            std::string::npos)
    << r.log.errors.front().message;
}

TEST_F(sim_failure, unknown_arguments_are_argparse_errors) {
  const auto r = run_sim(with(llama3_8b_args(), {"--no-such-flag"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("pretrain_gpt.py: error: unrecognized arguments: --no-such-flag"),
            std::string::npos)
    << r.err;
  const auto v = run_sim(with(llama3_8b_args(), {"--sim-megatron-version", "0.9"}));
  EXPECT_EQ(v.status, 2);
  EXPECT_NE(v.err.find("expected 0.5, 0.8, 0.15 or 0.16, got '0.9'"), std::string::npos);
}

} // namespace
} // namespace paratune::test
