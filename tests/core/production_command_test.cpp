// core/production_command: what `paratune export` gives for a production
// run: the trial's Megatron-LM arguments without the tuning run's own
// iteration count and log flags, and the environment the training needed.
#include "core/production_command.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "core/megatron_args.hpp"

namespace paratune {
namespace {

using args = std::vector<std::string>;

TEST(production_command, drops_the_measuring_flags_and_their_values_only) {
  EXPECT_EQ(production_args({"--num-layers", "32", "--train-iters", "12", "--bf16",
                             "--log-interval", "1", "--log-throughput", "--seq-length", "8192"}),
            (args{"--num-layers", "32", "--bf16", "--seq-length", "8192"}));
  EXPECT_EQ(production_args({}), args{});
  EXPECT_EQ(production_args({"--use-distributed-optimizer"}), args{"--use-distributed-optimizer"});
  // A trailing flag whose value is missing takes nothing past the end.
  EXPECT_EQ(production_args({"--bf16", "--train-iters"}), args{"--bf16"});
}

TEST(production_command, a_rendered_trial_launch_loses_exactly_the_three_flags) {
  megatron_launch l;
  l.model.name = "m";
  l.model.layers = 4;
  l.model.hidden = 1024;
  l.model.heads = 16;
  l.model.kv_heads = 16;
  l.model.ffn = 4096;
  l.model.vocab = 32000;
  l.config.tp = 2;
  l.config.gbs = 64;
  l.config.seq = 2048;
  l.train_iters = 12;
  const auto trial = render_megatron_args(l);
  const auto production = production_args(trial);
  EXPECT_EQ(trial.size() - production.size(), 5u); // two flags with a value, one without
  for (const char* flag : {"--train-iters", "--log-interval", "--log-throughput"})
    EXPECT_EQ(std::find(production.begin(), production.end(), flag), production.end()) << flag;
  for (const char* kept : {"--tensor-model-parallel-size", "--global-batch-size", "--bf16"})
    EXPECT_NE(std::find(production.begin(), production.end(), kept), production.end()) << kept;
}

TEST(production_command, the_environment_is_the_pool_the_job_and_what_megatron_needs) {
  const std::map<std::string, std::string> pool{{"NCCL_IB_HCA", "mlx5_0"},
                                                {"NCCL_DEBUG", "INFO"}};
  const std::map<std::string, std::string> job{{"NCCL_DEBUG", "WARN"},
                                               {"HF_TOKEN", "leaked"}};
  EXPECT_EQ(production_environment(framework_environment(2, 1, false, {}), pool, job, {"HF_TOKEN"}),
            (env_list{{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
                      {"NCCL_DEBUG", "WARN"}, // the job's replaces the pool's
                      {"NCCL_IB_HCA", "mlx5_0"}}));
  EXPECT_EQ(production_environment(framework_environment(1, 2, false, {}), {}, {}, {}),
            (env_list{{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}}));
  // Neither tensor nor context parallelism: Megatron-LM asks for nothing,
  // and PYTHONUNBUFFERED was only for paratune's reading of the output.
  EXPECT_EQ(production_environment(framework_environment(1, 1, false, {}), {}, {}, {}), env_list{});
}

} // namespace
} // namespace paratune
