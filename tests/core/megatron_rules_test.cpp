#include "core/megatron_rules.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

model_spec rules_llama3_8b() {
  model_spec m;
  m.name = "llama3-8b";
  m.layers = 32; m.hidden = 4096; m.heads = 32; m.kv_heads = 8;
  m.ffn = 14336; m.vocab = 128256; m.swiglu = true;
  return m;
}

model_spec moe() {
  model_spec m = rules_llama3_8b();
  m.experts = 8; m.topk = 2; m.moe_ffn = 14336;
  return m;
}

training_config base() {
  training_config c;
  c.tp = 2; c.pp = 2; c.mbs = 1; c.gbs = 512; c.seq = 8192;
  return c;
}

std::vector<std::string> rules_of(const std::vector<rule_violation>& v) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(x.rule);
  return out;
}

TEST(megatron_rules, valid_configuration_has_no_violation) {
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), base(), 8).empty());
}

TEST(megatron_rules, world_size_must_divide_by_model_parallel_size) {
  auto c = base(); c.tp = 4; c.pp = 4; // 16 does not divide 8
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].rule, "world_divisible");
  EXPECT_EQ(v[0].message, "world size (8) is not divisible by total_model_size "
                          "(total_model_size=16)");
}

TEST(megatron_rules, heads_must_divide_by_tp) {
  model_spec m = rules_llama3_8b(); m.heads = 14; m.kv_heads = 2; m.hidden = 896;
  auto c = base(); c.tp = 4; c.pp = 2; c.gbs = 1536;
  auto v = check_megatron_rules(m, c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"heads_tp"});
  EXPECT_EQ(v[0].message, "num_attention_heads (14) must be a multiple of "
                          "tensor_model_parallel_size (4).");
}

TEST(megatron_rules, query_groups_multiple_or_divisor_of_tp) {
  model_spec m = rules_llama3_8b(); m.kv_heads = 8;
  auto c = base(); c.tp = 8; c.pp = 1;
  EXPECT_TRUE(check_megatron_rules(m, c, 8).empty()); // 8 % 8
  m.kv_heads = 4; // divisor of 8: allowed at HEAD
  EXPECT_TRUE(check_megatron_rules(m, c, 8).empty());
  m.kv_heads = 12; m.heads = 48; m.hidden = 6144; c.tp = 8;
  auto v = check_megatron_rules(m, c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"query_groups_tp"});
  EXPECT_EQ(v[0].message, "num_query_groups (12) must be a multiple or divisor "
                          "of tensor_model_parallel_size (8).");
}

TEST(megatron_rules, hidden_must_divide_by_heads) {
  model_spec m = rules_llama3_8b(); m.hidden = 4100;
  auto v = check_megatron_rules(m, base(), 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"hidden_heads"});
}

TEST(megatron_rules, global_batch_divisible_by_micro_times_dp) {
  auto c = base(); c.gbs = 6; c.mbs = 4; // dp = 2, 6 % 8 != 0
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"batch_divisible"});
  EXPECT_EQ(v[0].message, "global batch size (6) is not divisible by micro "
                          "batch size (4) times data parallel size (2)");
}

TEST(megatron_rules, layers_divisible_by_pipeline_size) {
  auto c = base(); c.tp = 1; c.pp = 8; c.gbs = 512;
  model_spec m = rules_llama3_8b(); m.layers = 30;
  auto v = check_megatron_rules(m, c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"layers_pp"});
  EXPECT_EQ(v[0].message, "Number of layers should be divisible by the "
                          "pipeline-model-parallel size");
}

TEST(megatron_rules, uneven_split_first_and_last_stage) {
  auto c = base(); c.tp = 1; c.pp = 4; c.first_pp_layers = 5; c.last_pp_layers = 5;
  model_spec m = rules_llama3_8b(); // 32 - 10 = 22 over 2 stages = 11 each
  EXPECT_TRUE(check_megatron_rules(m, c, 8).empty());
  EXPECT_EQ(stage_layers(m, c), (std::vector<int>{5, 11, 11, 5}));
  c.first_pp_layers = 4; // 32 - 9 = 23 over 2 stages: not even
  EXPECT_EQ(rules_of(check_megatron_rules(m, c, 8)),
            std::vector<std::string>{"uneven_split"});
  c.pp = 1; c.tp = 2; c.first_pp_layers = 4; c.last_pp_layers = 0;
  EXPECT_EQ(rules_of(check_megatron_rules(m, c, 8)),
            std::vector<std::string>{"uneven_needs_pp"});
}

TEST(megatron_rules, sequence_parallel_needs_tp) {
  auto c = base(); c.tp = 1; c.sp = true;
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"sp_needs_tp"});
}

TEST(megatron_rules, overlap_param_gather_needs_distributed_optimizer) {
  auto c = base(); c.overlap_param = true;
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"overlap_param_needs_dist_opt"});
  EXPECT_EQ(v[0].message, "--overlap-param-gather only supported with "
                          "distributed optimizer");
  c.dist_opt = true;
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), c, 8).empty());
}

TEST(megatron_rules, sequence_length_against_context_parallel) {
  auto c = base(); c.tp = 1; c.pp = 1; c.cp = 4; c.seq = 8196; c.gbs = 512;
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"seq_cp"});
  EXPECT_EQ(v[0].message, "seq-length should be a multiple of 2 * "
                          "context-parallel-size if context-parallel-size > 1.");
}

TEST(megatron_rules, experts_against_expert_parallel) {
  auto c = base(); c.tp = 1; c.pp = 1; c.ep = 16;
  auto v = check_megatron_rules(moe(), c, 16);
  EXPECT_EQ(rules_of(v), std::vector<std::string>{"experts_ep"});
  c.ep = 2;
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"ep_needs_experts"});
  c.ep = 8; c.tp = 2; // 2 * 8 * 1 = 16 does not divide 8
  EXPECT_EQ(rules_of(check_megatron_rules(moe(), c, 8)),
            std::vector<std::string>{"world_ep"});
}

TEST(megatron_rules, interleaved_schedule_rules) {
  auto c = base(); c.tp = 1; c.pp = 2; c.vpp = 2;
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"vpp_needs_pp"});
  c.pp = 4; c.vpp = 3; // 32 % 12 != 0
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"vpp_layers"});
  c.vpp = 2; c.gbs = 6; c.mbs = 1; // dp 2, 3 micro-batches, not divisible by 4
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"vpp_microbatches"});
}

TEST(megatron_rules, recompute_layers_need_full_and_fit_the_stage) {
  auto c = base(); c.recompute = recompute_mode::selective; c.recompute_layers = 2;
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"recompute_layers_needs_full"});
  c.recompute = recompute_mode::full; c.recompute_layers = 17; // 16 per stage
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"recompute_layers_range"});
}

TEST(megatron_rules, sizes_must_be_positive) {
  auto c = base(); c.mbs = 0;
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"positive"});
  EXPECT_EQ(v[0].message, "micro_batch_size must be positive, got 0");
}

// Megatron's --account-for-embedding/loss-in-pipeline-split: the embedding
// and the loss count as one layer each, and the first/last stage builds one
// transformer layer less (get_num_layers_to_build).
TEST(megatron_rules, accounted_embedding_and_loss_join_the_pipeline_split) {
  model_spec m = rules_llama3_8b(); m.layers = 126; // Llama 3.1 405B's depth
  training_config c = base(); c.tp = 8; c.pp = 8; c.vpp = 8; c.cp = 2; c.gbs = 512;
  EXPECT_EQ(rules_of(check_megatron_rules(m, c, 1024)),
            (std::vector<std::string>{"layers_pp", "vpp_layers"}));
  c.pp_account_embedding = c.pp_account_loss = true; // 128 = 8 x 8 x 2
  EXPECT_TRUE(check_megatron_rules(m, c, 1024).empty());
  EXPECT_EQ(pipeline_split_layers(m, c), 128);
  EXPECT_EQ(stage_layers(m, c), (std::vector<int>{15, 16, 16, 16, 16, 16, 16, 15}));
  c.pp_account_loss = false; // 127 does not divide by 8
  const auto v = check_megatron_rules(m, c, 1024);
  ASSERT_EQ(rules_of(v), (std::vector<std::string>{"layers_pp", "vpp_layers"}));
  EXPECT_NE(v[0].message.find("num_layers 126 + 1 for the accounted embedding/loss = 127"),
            std::string::npos) << v[0].message;
}

TEST(megatron_rules, accounting_refuses_an_uneven_first_or_last_stage) {
  model_spec m = rules_llama3_8b(); m.layers = 30;
  training_config c = base(); c.tp = 1; c.pp = 4; c.pp_account_embedding = true;
  c.pp_account_loss = true; // 32 / 4 = 8: stages 7, 8, 8, 7
  EXPECT_TRUE(check_megatron_rules(m, c, 8).empty());
  EXPECT_EQ(stage_layers(m, c), (std::vector<int>{7, 8, 8, 7}));
  c.first_pp_layers = 6; c.last_pp_layers = 6;
  const auto v = check_megatron_rules(m, c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"uneven_accounted"});
  EXPECT_NE(v[0].message.find("Does not support standalone embedding stage"), std::string::npos);
}

} // namespace
} // namespace paratune
