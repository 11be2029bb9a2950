// The space planner: enumeration, rejection counts per Megatron rule and for
// memory, ranking by predicted throughput, and its speed on a whole default
// search space.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/input_error.hpp"
#include "core/job_spec.hpp"
#include "core/megatron_rules.hpp"
#include "core/tuning/space_planner.hpp"
#include "validation/reference_specs.hpp"

namespace paratune {
namespace {

using reference::dgx_a100;
using reference::llama3_8b;

plan_request llama_request(config_space space) {
  plan_request r{llama3_8b(), dgx_a100(), 8, precision::bf16, {}, std::move(space), 5, {}};
  r.base.seq = 8192;
  r.base.gbs = 512;
  return r;
}

TEST(space_planner, override_space_replaces_and_adds_keys) {
  const config_space base = {{"tp", {"1", "2", "4", "8"}}, {"pp", {"1", "2"}}};
  const auto s = override_space(base, "tp=2|4, cp=1|2");
  EXPECT_EQ(s.at("tp"), (std::vector<std::string>{"2", "4"}));
  EXPECT_EQ(s.at("pp"), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(s.at("cp"), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(space_size(s), 8u);
  EXPECT_EQ(override_space(base, ""), base);
}

TEST(space_planner, bad_space_text_names_the_key_or_value) {
  auto message = [](const std::string& text) {
    try {
      override_space({}, text);
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("bogus=1|2").find("'bogus'"), std::string::npos);
  EXPECT_NE(message("tp=two").find("'two'"), std::string::npos);
  EXPECT_NE(message("tp=").find("'tp' has no values"), std::string::npos);
  EXPECT_NE(message("tp").find("expected KEY=V1|V2"), std::string::npos);
}

TEST(space_planner, counts_every_candidate_and_rejects_by_rule) {
  // tp 3 breaks heads_tp (32 heads) and world_divisible (8 GPUs): 2 of 4 tp
  // values x 2 sp values; sp without TP breaks sp_needs_tp.
  auto r = llama_request({{"tp", {"1", "2", "3", "8"}}, {"sp", {"false", "true"}},
                          {"dist_opt", {"true"}}});
  const auto res = plan_space(r);
  EXPECT_EQ(res.candidates, 8u);
  EXPECT_EQ(res.rejected_by_rule.at("heads_tp"), 2u);
  EXPECT_EQ(res.rejected_by_rule.at("world_divisible"), 2u);
  EXPECT_EQ(res.rejected_by_rule.at("sp_needs_tp"), 1u);
  EXPECT_EQ(res.rule_rejected, 3u); // tp 3 (both sp) and tp 1 with sp
  EXPECT_EQ(res.rule_rejected + res.memory_rejected + res.fitting, res.candidates);
  EXPECT_NE(res.rule_example.at("heads_tp").find("num_attention_heads (32)"), std::string::npos);
}

TEST(space_planner, ranks_fitting_configs_by_tokens_per_second) {
  auto r = llama_request({{"tp", {"1", "2", "4", "8"}}, {"pp", {"1", "2", "4"}},
                          {"recompute", {"none", "selective", "full"}},
                          {"dist_opt", {"true"}}, {"overlap_grad", {"true"}}});
  r.top_k = 100;
  const auto res = plan_space(r);
  EXPECT_EQ(res.candidates, 36u);
  EXPECT_GT(res.memory_rejected, 0u); // TP 1 PP 1 without recompute: 80 GiB is not enough
  ASSERT_EQ(res.top.size(), res.fitting);
  for (size_t i = 0; i + 1 < res.top.size(); ++i)
    EXPECT_GE(res.top[i].prediction.tokens_per_s_per_gpu,
              res.top[i + 1].prediction.tokens_per_s_per_gpu);
  for (const auto& t : res.top) {
    EXPECT_TRUE(t.prediction.fits);
    EXPECT_TRUE(check_megatron_rules(r.model, t.config, 8).empty());
  }
  // top_k trims the same ranking.
  r.top_k = 3;
  const auto three = plan_space(r);
  ASSERT_EQ(three.top.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(three.top[i].config, res.top[i].config);
}

TEST(space_planner, the_best_equals_a_brute_force_search) {
  auto r = llama_request({{"tp", {"1", "2", "4"}}, {"mbs", {"1", "2"}},
                          {"recompute", {"none", "full"}}, {"dist_opt", {"false", "true"}}});
  const auto res = plan_space(r);
  double best = 0;
  for (const char* tp : {"1", "2", "4"})
    for (const char* mbs : {"1", "2"})
      for (const char* rc : {"none", "full"})
        for (const char* d : {"false", "true"}) {
          const auto c = parse_config(std::string("tp=") + tp + ",mbs=" + mbs + ",recompute=" + rc
                                        + ",dist_opt=" + d, r.base);
          const auto p = predict(r.model, r.cluster, 8, c, precision::bf16);
          if (check_megatron_rules(r.model, c, 8).empty() && p.fits)
            best = std::max(best, p.tokens_per_s_per_gpu);
        }
  ASSERT_FALSE(res.top.empty());
  EXPECT_DOUBLE_EQ(res.top.front().prediction.tokens_per_s_per_gpu, best);
}

TEST(space_planner, empty_space_plans_the_base_alone) {
  auto r = llama_request({});
  r.base.tp = 2;
  r.base.dist_opt = true;
  const auto res = plan_space(r);
  EXPECT_EQ(res.candidates, 1u);
  ASSERT_EQ(res.top.size(), 1u);
  EXPECT_EQ(res.top[0].config, r.base);
}

// Speed is measured by bench/space_planner.cpp, not here: unit tests stay
// free of timing so that a loaded machine cannot fail them.
TEST(space_planner, plans_the_whole_default_space) {
  auto r = llama_request({});
  r.space = default_search_space(r.model, r.cluster, 8, r.base);
  const auto res = plan_space(r);
  // tp 4 x pp 4 x mbs 4 x recompute 3 x layers 4 x 7 two-valued keys.
  EXPECT_EQ(res.candidates, 4u * 4 * 4 * 3 * 4 * 128);
  EXPECT_EQ(res.rule_rejected + res.memory_rejected + res.fitting, res.candidates);
  EXPECT_GT(res.rejected_by_rule.at("recompute_layers_needs_full"), 0u);
  EXPECT_GT(res.memory_rejected, 0u);
  ASSERT_EQ(res.top.size(), 5u);
  EXPECT_TRUE(res.top.front().prediction.fits);
}

} // namespace
} // namespace paratune
