// `paratune plan` end to end.

#include <set>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/perf/memory_verdict.hpp"
#include "tests/cli/run_paratune.hpp"

namespace paratune {
namespace {

using plan_cli = test::paratune_cli;

TEST_F(plan_cli, llama3_8b_on_one_a100_node_ranks_fitting_configs) {
  const auto r = test::run_paratune("plan --model llama3-8b --cluster dgx-a100-80g --gpus 8 "
                                    "--seq 8192 --gbs 512 --top 5 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["candidates"], 98304);
  EXPECT_EQ(j["top"].size(), 5u);
  const auto& best = j["top"][0];
  EXPECT_TRUE(best["fits"].get<bool>());
  EXPECT_EQ(best["rank"], 1);
  EXPECT_EQ(best["config"]["seq"], 8192);
  EXPECT_EQ(best["config"]["gbs"], 512);
  // The fastest is tight: within the model's measured error of the 80 GiB.
  EXPECT_EQ(best["memory_verdict"], "tight");
  EXPECT_LE(best["peak_memory_mib"].get<double>() * (1 + measured_memory_error.low), 81920);
  for (size_t i = 0; i + 1 < j["top"].size(); ++i)
    EXPECT_GE(j["top"][i]["tokens_per_s_per_gpu"].get<double>(),
              j["top"][i + 1]["tokens_per_s_per_gpu"].get<double>());
  EXPECT_GT(j["rejected_by_memory"].get<int>(), 0);
  EXPECT_GT(j["rejected_by_rules"].get<int>(), 0);
  EXPECT_GT(j["rejected_by_rule"]["world_divisible"]["count"].get<int>(), 0);
  EXPECT_GT(j["rejected_by_rule"]["recompute_layers_needs_full"]["count"].get<int>(), 0);
  // Each row is a layout (tp, pp, dp, cp, ep, mbs), its flag variants folded
  // in: ten flag variants of one layout used to fill the table.
  std::set<std::string> layouts;
  int variants = 0;
  for (const auto& t : j["top"]) {
    layouts.insert(t["layout"].get<std::string>());
    EXPECT_GE(t["variants"].get<int>(), 1);
    variants += t["variants"].get<int>();
    // The one MFU: model TFLOP/s over the A100's 312 TFLOP/s bf16 peak.
    EXPECT_NEAR(t["mfu"].get<double>(), t["tflops_per_gpu"].get<double>() / 312, 1e-9);
  }
  EXPECT_EQ(layouts.size(), j["top"].size());
  EXPECT_GT(variants, 5);
  EXPECT_LE(variants, j["fitting"].get<int>());
  EXPECT_GE(j["layouts"].get<int>(), 5);
  EXPECT_EQ(j["fitting"].get<int>() + j["rejected_by_memory"].get<int>()
              + j["rejected_by_rules"].get<int>(),
            98304);
}

TEST_F(plan_cli, space_narrows_the_search_and_the_table_shows_it) {
  const auto r = test::run_paratune(
    "plan --model llama3-8b --cluster dgx-a100-80g --gpus 8 --seq 8192 --gbs 512 --top 3 "
    "--space 'tp=1|2|3,pp=1|2,mbs=1,recompute=none|full,recompute_layers=0,sp=false,"
    "dist_opt=true,overlap_grad=true,overlap_param=true,fused_ce=false,first_pp_layers=0,"
    "last_pp_layers=0'");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* text : {"space: 12 candidates", "rank", "tokens/s", "TFLOP/s", "MFU",
                           "peak MiB", "limiting", "rejected by memory:",
                           "rejected by Megatron-LM rules: 4", "heads_tp",
                           "num_attention_heads (32) must be a multiple"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST_F(plan_cli, a_bad_space_exits_2_naming_it) {
  const auto r = test::run_paratune(
    "plan --model llama3-8b --cluster dgx-a100-80g --gpus 8 --space 'tpp=1|2'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--space: unknown config key 'tpp'"), std::string::npos) << r.err;
}

} // namespace
} // namespace paratune
