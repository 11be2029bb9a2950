// The space planner: enumeration, rejection counts per Megatron rule and for
// memory, ranking by predicted throughput, and its speed on a whole default
// search space.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/input_error.hpp"
#include "core/job_spec.hpp"
#include "core/megatron_args.hpp"
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
  // values x 2 sp values; sp without TP is paratune's own sp_without_tp.
  auto r = llama_request({{"tp", {"1", "2", "3", "8"}}, {"sp", {"false", "true"}},
                          {"dist_opt", {"true"}}});
  const auto res = plan_space(r);
  EXPECT_EQ(res.candidates, 8u);
  EXPECT_EQ(res.rejected_by_rule.at("heads_tp"), 2u);
  EXPECT_EQ(res.rejected_by_rule.at("world_divisible"), 2u);
  EXPECT_EQ(res.rejected_by_rule.at("sp_without_tp"), 1u);
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
  // One row per layout (tp x pp here), the recompute modes its variants.
  ASSERT_EQ(res.top.size(), res.layouts);
  EXPECT_LE(res.layouts, 12u);
  EXPECT_GT(res.fitting, res.layouts);
  std::size_t variants = 0;
  std::set<std::string> seen;
  for (const auto& t : res.top) {
    variants += t.variants;
    EXPECT_TRUE(seen.insert(plan_layout(t.config, 8)).second) << plan_layout(t.config, 8);
  }
  EXPECT_EQ(variants, res.fitting);
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

TEST(space_planner, a_layout_is_its_split_and_micro_batch_and_shows_its_best_variant) {
  auto c = parse_config("tp=2,pp=2,mbs=2,recompute=full,dist_opt=true", {});
  EXPECT_EQ(plan_layout(c, 16), "tp=2 pp=2 dp=4 cp=1 ep=1 mbs=2");
  // Flags and recompute are variants of the same layout.
  auto r = llama_request({{"tp", {"2"}}, {"recompute", {"none", "selective", "full"}},
                          {"dist_opt", {"false", "true"}}});
  const auto res = plan_space(r);
  ASSERT_EQ(res.top.size(), 1u);
  EXPECT_EQ(res.layouts, 1u);
  EXPECT_EQ(res.top[0].variants, res.fitting);
  EXPECT_GT(res.top[0].variants, 1u);
  for (const char* rc : {"none", "selective", "full"})
    for (const char* d : {"false", "true"}) {
      const auto v = parse_config(std::string("tp=2,recompute=") + rc + ",dist_opt=" + d, r.base);
      const auto p = predict(r.model, r.cluster, 8, v, precision::bf16);
      if (p.fits) {
        EXPECT_GE(res.top[0].prediction.tokens_per_s_per_gpu, p.tokens_per_s_per_gpu);
      }
    }
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
          // What tune would run before any trial: within the model's
          // error band, and at or below the device.
          if (check_megatron_rules(r.model, c, 8).empty() && p.fits
              && p.peak_memory_mib <= p.memory_limit_mib)
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

// --- the planner never proposes what Megatron-LM refuses ----------------------

// The command line paratune would launch for a planned configuration, read
// back as paratune-sim reads it: no row of Megatron-LM's table may trip.
void expect_megatron_starts(const model_spec& m, const training_config& c, int world) {
  megatron_launch l;
  l.model = m;
  l.config = c;
  const auto parsed = parse_megatron_args(render_megatron_args(l));
  const auto v = check_megatron_launch(parsed, world);
  EXPECT_TRUE(v.empty()) << canonical_key(c) << ": " << (v.empty() ? "" : v.front().python_line());
  EXPECT_EQ(parsed.config.vpp, c.vpp) << canonical_key(c);
}

TEST(space_planner, virtual_stages_need_two_pipeline_stages_not_three) {
  auto r = llama_request({{"pp", {"1", "2"}}, {"vpp", {"1", "2"}}, {"tp", {"2"}},
                          {"recompute", {"full"}}, {"dist_opt", {"true"}}});
  r.top_k = 100;
  const auto res = plan_space(r);
  EXPECT_EQ(res.candidates, 4u);
  EXPECT_EQ(res.rejected_by_rule.at("vpp_needs_pp"), 1u); // pp 1 with vpp 2
  EXPECT_EQ(res.rule_example.at("vpp_needs_pp"),
            "When interleaved schedule is used, pipeline-model-parallel size should be greater "
            "than 1");
  bool pp2_vpp2 = false;
  for (const auto& t : res.top) {
    pp2_vpp2 = pp2_vpp2 || (t.config.pp == 2 && t.config.vpp == 2);
    EXPECT_FALSE(t.config.pp == 1 && t.config.vpp == 2);
    expect_megatron_starts(r.model, t.config, 8);
  }
  EXPECT_TRUE(pp2_vpp2) << "pp 2 with 2 virtual stages is a valid configuration";
}

TEST(space_planner, overlap_param_gather_comes_with_grad_reduce_and_the_distributed_optimizer) {
  auto r = llama_request({{"tp", {"2"}}, {"overlap_param", {"false", "true"}},
                          {"overlap_grad", {"false", "true"}}, {"dist_opt", {"false", "true"}}});
  r.top_k = 100;
  const auto res = plan_space(r);
  EXPECT_EQ(res.candidates, 8u);
  EXPECT_EQ(res.rejected_by_rule.at("overlap_param_needs_dist_opt"), 2u);
  EXPECT_EQ(res.rejected_by_rule.at("overlap_param_needs_overlap_grad"), 2u);
  EXPECT_EQ(res.rule_rejected, 3u); // param gather without grad reduce, dist opt, or both
  EXPECT_EQ(res.rule_example.at("overlap_param_needs_overlap_grad"),
            "Must use --overlap-param-gather with --overlap-grad-reduce");
  bool overlapped = false;
  for (const auto& t : res.top) {
    if (t.config.overlap_param) {
      overlapped = true;
      EXPECT_TRUE(t.config.overlap_grad && t.config.dist_opt) << canonical_key(t.config);
    }
    expect_megatron_starts(r.model, t.config, 8);
  }
  EXPECT_TRUE(overlapped);
}

model_spec planner_moe() {
  model_spec m = llama3_8b();
  m.name = "moe-8x";
  m.layers = 16;
  m.experts = 8;
  m.topk = 2;
  m.moe_ffn = 2048;
  return m;
}

TEST(space_planner, moe_with_tensor_parallelism_is_proposed_without_biases) {
  auto r = llama_request({{"tp", {"1", "2", "4"}}, {"ep", {"1", "2", "4", "8"}},
                          {"sp", {"false", "true"}}, {"dist_opt", {"true"}},
                          {"recompute", {"full"}}});
  r.model = planner_moe();
  r.top_k = 100;
  const auto res = plan_space(r);
  EXPECT_EQ(res.rejected_by_rule.count("moe_bias_etp"), 0u);
  EXPECT_GT(res.rejected_by_rule.at("world_expert_grid"), 0u); // tp 2 x ep 8, tp 4 x ep 4 ...
  bool moe_tp = false;
  for (const auto& t : res.top) {
    moe_tp = moe_tp || t.config.tp > 1;
    expect_megatron_starts(r.model, t.config, 8);
    megatron_launch l;
    l.model = r.model;
    l.config = t.config;
    const auto args = render_megatron_args(l);
    EXPECT_NE(std::find(args.begin(), args.end(), "--disable-bias-linear"), args.end());
  }
  EXPECT_TRUE(moe_tp);
}

TEST(space_planner, the_default_space_proposes_only_what_megatron_starts) {
  // Every row of the table, over the whole default space of a dense and a
  // MoE model: what is planned, rendered and read back trips none.
  for (const auto& m : {llama3_8b(), planner_moe()}) {
    auto r = llama_request({});
    r.model = m;
    r.space = default_search_space(m, r.cluster, 8, r.base);
    r.space["vpp"] = {"1", "2", "4"};
    r.space["ep"] = m.is_moe() ? std::vector<std::string>{"1", "2", "8"}
                               : std::vector<std::string>{"1"};
    r.top_k = 400;
    const auto res = plan_space(r);
    EXPECT_GT(res.fitting, 10u) << m.name;
    EXPECT_GT(res.rule_rejected, 0u) << m.name;
    for (const auto& t : res.top)
      expect_megatron_starts(m, t.config, 8);
  }
}

} // namespace
} // namespace paratune
