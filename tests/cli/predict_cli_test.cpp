// `paratune predict` end to end: the built executable as a child process.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/perf/memory_verdict.hpp"
#include "tests/cli/run_paratune.hpp"

namespace paratune {
namespace {

using predict_cli = test::paratune_cli;

// GPT-3 175B as SC21 ran it on 1024 A100s: TP 8, PP 16, batch 1536, full
// recompute, fp16, 2021 Megatron (no flash attention, scatter-gather p2p).
const std::string gpt3_sc21 =
  "predict --model layers=96,hidden=12288,heads=96,vocab=51200 --cluster dgx-a100-80g "
  "--gpus 1024 --config tp=8,pp=16,mbs=1,gbs=1536,seq=2048,recompute=full --precision fp16 "
  "--stack flash_attention=false,p2p_scatter_gather=true";

// NVIDIA's Llama 3.1 405B recipe on 1024 H100 (Megatron-Bridge performance
// summary, 25.11): TP 8, PP 8, CP 2, VPP 8, embedding and loss counted in the
// pipeline split, FP8, distributed optimizer, bf16 gradient reduction, TP
// comm overlap. It ran, so it must not be refused: at 76 GB predicted of 80
// it is within the model's measured error of the device, tight.
const std::string llama405b_recipe =
  "predict --model llama3.1-405b --cluster dgx-h100 --gpus 1024 --precision fp8 "
  "--stack tp_comm_overlap=true --config tp=8,pp=8,cp=2,vpp=8,mbs=1,gbs=512,seq=8192,"
  "sp=true,dist_opt=true,overlap_grad=true,overlap_param=true,pp_account_embedding=true,"
  "pp_account_loss=true,grad_reduce_bf16=true";

TEST_F(predict_cli, nvidia_llama31_405b_recipe_on_1024_h100_fits) {
  const auto text = test::run_paratune(llama405b_recipe);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("memory: tight (peak 75657 MiB; the model's measured error, "
                          "-16%..+19%, puts the real peak at 63930..90107 MiB, around the "
                          "81920 MiB of the device: only a run can tell)"),
            std::string::npos)
    << text.out;
  const auto r = test::run_paratune(llama405b_recipe + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_EQ(j["memory_verdict"], "tight");
  // 128 = 126 + 2 layers, 16 per rank: stages 0 and 7 build 15.
  EXPECT_EQ(j["memory"]["stages"].size(), 8u);
  EXPECT_EQ(j["memory"]["peak"]["stage"], 1);
  EXPECT_NEAR(j["peak_memory_mib"].get<double>(), 75657, 50);
  // Measured 292 tokens/s per GPU; the model is 13% optimistic here.
  EXPECT_NEAR(j["tokens_per_s_per_gpu"].get<double>() / 292, 1.13, 0.03);
}

TEST_F(predict_cli, gpt3_175b_on_1024_a100_as_sc21_ran_it) {
  const auto r = test::run_paratune(gpt3_sc21 + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // Counted as SC21 counts (recomputation included, its 96 formula). 153 is
  // the reference the issue gives for this run; the nearest Table 1 rows
  // measured 140 (76B, 1024 GPUs) and 148 (145B, 1536 GPUs).
  EXPECT_NEAR(j["hardware_tflops_per_gpu"].get<double>() / 153, 1.0, 0.10);
  EXPECT_NEAR(j["hfu"].get<double>() * 312, j["hardware_tflops_per_gpu"].get<double>(), 1e-6);
  // Model FLOPs leave the recomputed forward pass out: 3/4 of the layer work.
  EXPECT_NEAR(j["tflops_per_gpu"].get<double>() / j["hardware_tflops_per_gpu"].get<double>(),
              0.75, 0.01);
  EXPECT_NEAR(j["mfu"].get<double>(), j["tflops_per_gpu"].get<double>() / 312, 1e-9);
  EXPECT_LT(j["mfu_causal"].get<double>(), j["mfu"].get<double>());
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_EQ(j["memory_verdict"], "fits");
  EXPECT_DOUBLE_EQ(j["memory_error"]["low"].get<double>(), measured_memory_error.low);
  EXPECT_DOUBLE_EQ(j["memory_error"]["high"].get<double>(), measured_memory_error.high);
  EXPECT_EQ(j["memory_error"]["runs"], 7);
  EXPECT_DOUBLE_EQ(j["memory_limit_mib"].get<double>(), 81920);
  EXPECT_EQ(j["memory"]["stages"].size(), 16u);
  EXPECT_EQ(j["memory"]["peak"]["stage"], 0);
  EXPECT_DOUBLE_EQ(j["memory"]["peak"]["total_mib"].get<double>(),
                   j["peak_memory_mib"].get<double>());
  EXPECT_EQ(j["limiting_factor"], "compute");
  EXPECT_EQ(j["data_parallel"], 8);
  EXPECT_EQ(j["micro_batches"], 192);
  EXPECT_EQ(j["config"]["tp"], 8);
  EXPECT_EQ(j["config"]["recompute"], "full");
  EXPECT_EQ(j["config"]["sp"], false);
  EXPECT_GT(j["time"]["recompute_s"].get<double>(), 0);
  EXPECT_GT(j["time"]["bubble_s"].get<double>(), 0);
  double parts = 0;
  for (const auto& [k, v] : j["time"].items())
    parts += v.get<double>();
  EXPECT_NEAR(parts, j["iteration_time_s"].get<double>(), 1e-6 * parts);
  // tokens/s per GPU = gbs * seq / time / gpus.
  EXPECT_NEAR(j["tokens_per_s_per_gpu"].get<double>(),
              1536.0 * 2048 / j["iteration_time_s"].get<double>() / 1024, 1e-6);
}

TEST_F(predict_cli, readable_report_names_every_part) {
  const auto r = test::run_paratune(gpt3_sc21);
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* text : {"iteration time", "TFLOP/s per GPU", "MFU", "HFU", "tokens/s per GPU",
                           "pipeline stage 0 of 16", "weights", "gradients", "optimizer",
                           "activations", "logits", "overhead", "memory: fits (peak",
                           "the model's measured error, -16%..+19%",
                           "pipeline bubble", "recompute", "TP/SP communication",
                           "limiting factor: compute", "data parallel 8, 192 micro-batches"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST_F(predict_cli, a_config_that_does_not_fit_says_so) {
  // Llama3-8B with no parallelism, no recompute and micro-batch 2: twice the
  // activations of OptiCo's first OOM (micro-batch 1, 91.8 GB predicted,
  // which the measured error band leaves tight).
  const auto r = test::run_paratune(
    "predict --model llama3-8b --cluster dgx-a100-80g --gpus 8 --precision fp16 --json "
    "--config tp=1,pp=1,mbs=2,gbs=512,seq=8192,dist_opt=true,overlap_grad=true,overlap_param=true");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["fits"].get<bool>());
  EXPECT_EQ(j["memory_verdict"], "does not fit");
  EXPECT_EQ(j["limiting_factor"], "memory");
  EXPECT_GT(j["peak_memory_mib"].get<double>(), 81920);
}

TEST_F(predict_cli, a_rule_breaking_config_exits_2_with_megatrons_text) {
  const auto r = test::run_paratune(
    "predict --model llama3-8b --cluster dgx-a100-80g --gpus 8 --config tp=3,gbs=512");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("[heads_tp] num_attention_heads (32) must be a multiple of "
                       "tensor_model_parallel_size (3)."),
            std::string::npos)
    << r.err;
  EXPECT_NE(r.err.find("[world_divisible] world size (8) is not divisible by total_model_size"),
            std::string::npos)
    << r.err;
}

TEST_F(predict_cli, bad_arguments_exit_2_naming_the_argument) {
  const std::string tail = " --config tp=2,gbs=512";
  const std::pair<std::string, std::string> cases[] = {
    {"--model gpt5 --cluster dgx-a100-80g --gpus 8", "--model 'gpt5': unknown model 'gpt5'"},
    {"--model llama3-8b --cluster dgx-z --gpus 8", "--cluster 'dgx-z': unknown cluster 'dgx-z'"},
    {"--model layers=2,hidden=64 --cluster dgx-a100-80g --gpus 8", "--model 'layers=2,hidden=64'"},
    {"--model llama3-8b --cluster dgx-a100-80g --gpus 0", "--gpus: Value 0 not in range 1 to 1048576"},
    {"--model llama3-8b --cluster dgx-a100-80g --gpus -8", "--gpus: Value -8 not in range 1 to 1048576"},
    {"--model llama3-8b --cluster dgx-a100-80g --gpus 99999999999", "--gpus: Value 99999999999 not in range 1 to 1048576"},
    {"--model llama3-8b --cluster dgx-a100-80g --gpus 12", "--gpus 12: a job larger than one node"},
    {"--model llama3-8b --cluster dgx-a100-80g --gpus 8 --precision fp4", "--precision 'fp4'"},
    {"--model llama3-8b --cluster dgx-a100-80g --gpus 8 --precision fp8", "--precision fp8: A100-SXM4-80GB has no FP8 peak"},
    {"--model llama3-8b --cluster dgx-a100-80g --gpus 8 --stack flash=1", "--stack: unknown key 'flash'"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = test::run_paratune("predict " + args + tail);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_NE(r.err.find("error: " + message), std::string::npos) << args << "\n" << r.err;
  }
  const auto bad_key = test::run_paratune(
    "predict --model llama3-8b --cluster dgx-a100-80g --gpus 8 --config tp=2,bogus=1");
  EXPECT_EQ(bad_key.status, 2);
  EXPECT_NE(bad_key.err.find("--config: unknown config key 'bogus'"), std::string::npos);
}

} // namespace
} // namespace paratune
