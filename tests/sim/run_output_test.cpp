// paratune-sim's output of a successful run, read back by the Megatron-LM
// log parser: iterations, throughput, memory reports, start-up lines.

#include <gtest/gtest.h>

#include <regex>

#include "tests/sim/sim_process.hpp"

namespace paratune::test {
namespace {

class sim_run : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::filesystem::exists(sim_path()))
      GTEST_SKIP() << "paratune-sim not built in " << bin_dir();
  }
};

/// TP 2 with SP and the distributed optimizer: fits comfortably.
std::vector<std::string> tp2_run(const std::string& version, int iters = 8) {
  return with(llama3_8b_args(),
              {"--tensor-model-parallel-size", "2", "--sequence-parallel",
               "--use-distributed-optimizer", "--micro-batch-size", "1", "--train-iters",
               std::to_string(iters), "--sim-failure-rate", "0", "--sim-megatron-version",
               version});
}

TEST_F(sim_run, logs_every_iteration_with_its_throughput) {
  const auto r = run_sim(tp2_run("0.15"));
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.log.iterations.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    const auto& it = r.log.iterations[i];
    EXPECT_EQ(it.iteration, int64_t(i) + 1);
    EXPECT_EQ(it.train_iters, 8);
    ASSERT_TRUE(it.tflops_per_gpu.has_value()) << "iteration " << i + 1;
    if (i >= 2) { // after warm-up: an A100 run of Llama3-8B
      EXPECT_GT(*it.tflops_per_gpu, 150);
      EXPECT_LT(*it.tflops_per_gpu, 280);
    }
  }
  // The first iteration builds CUDA graphs, NCCL rings and allocator pools.
  EXPECT_GT(r.log.iterations[0].elapsed_ms, 4 * r.log.iterations[5].elapsed_ms);
  ASSERT_TRUE(r.log.layout);
  EXPECT_EQ(r.log.layout->tensor_parallel, 2);
  EXPECT_EQ(r.log.layout->pipeline_parallel, 1);
  EXPECT_EQ(r.log.layout->data_parallel, 4);
  EXPECT_EQ(r.log.num_microbatches, 128); // 512 / (1 x 4)
  EXPECT_EQ(r.log.args.at("tensor_model_parallel_size"), "2");
  EXPECT_EQ(r.log.args.at("sequence_parallel"), "True");
  EXPECT_TRUE(r.log.errors.empty());
  ASSERT_TRUE(r.log.exit_reason);
  EXPECT_EQ(*r.log.exit_reason, "exiting program at iteration 8");
}

TEST_F(sim_run, reports_memory_once_for_every_tensor_and_pipeline_rank) {
  auto args = tp2_run("0.15");
  args.insert(args.end(), {"--pipeline-model-parallel-size", "2"});
  const auto r = run_sim(args);
  ASSERT_EQ(r.status, 0) << r.err;
  // DP rank 0 of each TP x PP rank, ranks ordered tp-cp-dp-pp (DP 2).
  ASSERT_EQ(r.log.memory.size(), 4u);
  std::vector<int> ranks;
  for (const auto& m : r.log.memory) {
    ranks.push_back(m.rank);
    EXPECT_EQ(m.iteration, 3); // fp16: the first two steps were skipped
    EXPECT_GT(m.max_reserved_mib, 20000);
    EXPECT_LT(m.max_reserved_mib, 81920);
    EXPECT_LE(m.max_allocated_mib, m.max_reserved_mib);
  }
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 4, 5}));
}

TEST_F(sim_run, fp16_skips_the_first_steps_while_the_loss_scale_backs_off) {
  const auto r = run_sim(tp2_run("0.15", 4));
  ASSERT_EQ(r.log.iterations.size(), 4u);
  for (int i : {0, 1}) {
    EXPECT_FALSE(find_value(r.log.iterations[i], "lm loss"));
    EXPECT_EQ(find_number(r.log.iterations[i], "learning rate"), 0.0);
    EXPECT_EQ(find_number(r.log.iterations[i], "number of skipped iterations"), 1.0);
  }
  EXPECT_TRUE(find_value(r.log.iterations[2], "lm loss"));
  EXPECT_EQ(find_number(r.log.iterations[0], "loss scale"), 2147483648.0);
  EXPECT_EQ(find_number(r.log.iterations[1], "loss scale"), 1073741824.0);
}

TEST_F(sim_run, averages_each_log_interval) {
  auto args = tp2_run("0.15", 12);
  args.insert(args.end(), {"--log-interval", "4"});
  const auto r = run_sim(args);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.log.iterations.size(), 3u);
  EXPECT_EQ(r.log.iterations[0].iteration, 4);
  EXPECT_EQ(r.log.iterations[2].iteration, 12);
  EXPECT_EQ(find_number(r.log.iterations[0], "consumed samples"), 2048.0);
  EXPECT_EQ(find_number(r.log.iterations[0], "number of skipped iterations"), 2.0);
  // Iteration 1's warm-up is averaged into the first interval only.
  EXPECT_GT(r.log.iterations[0].elapsed_ms, 1.5 * r.log.iterations[2].elapsed_ms);
}

struct version_case {
  const char* version;
  const char* iteration_timestamp;  ///< regex, empty for none
  const char* learning_rate;        ///< regex of the first (zero) learning rate
  const char* memory_value;         ///< regex of a reserved value
  const char* world_line;           ///< text of the start-up world-size line
  const char* microbatches;         ///< text of the micro-batch line
};

class sim_versions : public sim_run, public ::testing::WithParamInterface<version_case> {};

TEST_P(sim_versions, follow_the_version_format) {
  const auto& v = GetParam();
  const auto r = run_sim(tp2_run(v.version, 4));
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(r.log.iterations.size(), 4u) << r.out;
  for (const auto& it : r.log.iterations) {
    if (*v.iteration_timestamp) {
      ASSERT_TRUE(it.timestamp()) << v.version;
      EXPECT_TRUE(std::regex_match(std::string(*it.timestamp()), std::regex(v.iteration_timestamp)))
        << *it.timestamp();
    } else {
      EXPECT_FALSE(it.timestamp()) << *it.timestamp();
    }
    ASSERT_TRUE(it.tflops_per_gpu) << v.version << ": --log-throughput is honoured";
  }
  EXPECT_TRUE(std::regex_search(r.out, std::regex(std::string("learning rate: ") + v.learning_rate
                                                  + " \\|")))
    << v.version;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(std::string("\\| reserved: ") + v.memory_value
                                                  + " \\|")))
    << v.version;
  EXPECT_NE(r.out.find(v.world_line), std::string::npos) << v.version;
  EXPECT_NE(r.out.find(v.microbatches), std::string::npos) << v.version;
  // Every version's start-up markers carry the same timestamp form.
  ASSERT_FALSE(r.log.markers.empty());
  const std::string date = *v.iteration_timestamp ? v.iteration_timestamp
                                                  : "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d";
  EXPECT_TRUE(std::regex_match(r.log.markers.front().timestamp, std::regex(date)))
    << r.log.markers.front().timestamp;
  ASSERT_TRUE(r.log.layout);
  EXPECT_EQ(r.log.layout->tensor_parallel, 2);
  EXPECT_EQ(r.log.num_microbatches, 128);
}

const char* seconds = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d";

INSTANTIATE_TEST_SUITE_P(
  versions, sim_versions,
  ::testing::Values(
    version_case{"0.5", "", "0\\.000E\\+00", "\\d+\\.0",
                 "context-parallel size: 1 tensor-model-parallel size: 2",
                 "setting number of micro-batches to constant 128"},
    version_case{"0.8", seconds, "0\\.000000E\\+00", "\\d+\\.0",
                 "context-parallel size: 1 tensor-model-parallel size: 2",
                 "setting number of microbatches to constant 128"},
    version_case{"0.15", seconds, "0\\.000000E\\+00", "\\d+\\.0",
                 "hierarchical context-parallel sizes: None, tensor-model-parallel size: 2",
                 "setting number of microbatches to constant 128"},
    version_case{"0.16", "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{6}", "0\\.000000E\\+00",
                 "\\d+\\.00", "hierarchical context-parallel sizes: None",
                 "setting number of microbatches to constant 128"}),
  [](const auto& info) {
    std::string n = info.param.version;
    std::replace(n.begin(), n.end(), '.', '_');
    return "v" + n;
  });

TEST_F(sim_run, theoretical_memory_lines_follow_the_version) {
  const auto v08 = run_sim(tp2_run("0.8", 4));
  EXPECT_TRUE(v08.log.theory.weight_and_optimizer_mb);
  EXPECT_FALSE(v08.log.theory.activation_mb) << "0.7-0.14: weight-only line without SP + selective";
  EXPECT_NE(v08.out.find("Number of parameters in transformer layers in billions:  6.98"),
            std::string::npos);
  const auto v15 = run_sim(tp2_run("0.15", 4));
  ASSERT_TRUE(v15.log.theory.activation_mb);
  ASSERT_TRUE(v15.log.theory.total_mb);
  EXPECT_NEAR(*v15.log.theory.total_mb,
              *v15.log.theory.weight_and_optimizer_mb + *v15.log.theory.activation_mb, 0.02);
  EXPECT_NE(v15.out.find("Number of parameters in transformer block in billions:  6.98"),
            std::string::npos);
  EXPECT_NE(v15.out.find("compute_activation_memory with SP"), std::string::npos);
  const auto v05 = run_sim(tp2_run("0.5", 4));
  EXPECT_FALSE(v05.log.theory.weight_and_optimizer_mb) << "0.6 rules: footprint only with SP + selective";
  EXPECT_TRUE(v05.log.theory.params_billion);
}

} // namespace
} // namespace paratune::test
