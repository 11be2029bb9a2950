// Megatron-LM's start-up rules as a table (core/megatron_rule_table.hpp) and
// paratune's guard over it: each row refuses with Megatron-LM's own words,
// and what paratune renders is checked by the same rows.

#include "core/megatron_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/megatron_args.hpp"
#include "tests/fixtures/megatron_rule_cases.hpp"

namespace paratune {
namespace {

model_spec rules_llama3_8b() {
  model_spec m;
  m.name = "llama3-8b";
  m.layers = 32; m.hidden = 4096; m.heads = 32; m.kv_heads = 8;
  m.ffn = 14336; m.vocab = 128256; m.swiglu = true;
  m.position = position_embedding::rope; m.bias_linear = false;
  return m;
}

model_spec rules_moe() {
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

// --- the table -------------------------------------------------------------

TEST(megatron_rule_table, every_rule_has_one_row_with_its_source) {
  const auto table = megatron_rule_table();
  EXPECT_EQ(table.size(), 35u);
  std::set<std::string_view> ids;
  for (const auto& row : table) {
    EXPECT_TRUE(ids.insert(row.id).second) << row.id;
    EXPECT_EQ(&megatron_rule_info(row.rule), &row) << row.id;
    EXPECT_EQ(find_megatron_rule(row.id), &row);
    EXPECT_EQ(row.file.rfind("megatron/", 0), 0u) << row.id;
    EXPECT_GT(row.line, 0) << row.id;
  }
  for (int r = 0; r <= int(megatron_rule::vpp_microbatch_remainder); ++r)
    EXPECT_EQ(megatron_rule_info(megatron_rule(r)).rule, megatron_rule(r)) << r;
  EXPECT_EQ(find_megatron_rule("no_such_rule"), nullptr);
  EXPECT_EQ(megatron_rules_commit, "d98e8a64ddf34856e74b24714e3bedb2f5a39553");
  const auto& heads = megatron_rule_info(megatron_rule::heads_tp);
  EXPECT_EQ(heads.file, "megatron/core/transformer/transformer_config.py");
  EXPECT_EQ(heads.line, 1447);
  EXPECT_EQ(heads.error, python_error::value);
  const auto& overlap = megatron_rule_info(megatron_rule::overlap_param_needs_overlap_grad);
  EXPECT_EQ(overlap.file, "megatron/training/arguments.py");
  EXPECT_EQ(overlap.line, 1028);
  EXPECT_EQ(overlap.message, "Must use --overlap-param-gather with --overlap-grad-reduce");
}

TEST(megatron_rule_table, arguments_rows_come_in_megatrons_order) {
  // validate_args runs top to bottom: its rows' lines only grow.
  int last = 0;
  for (const auto& row : megatron_rule_table()) {
    if (row.file != "megatron/training/arguments.py")
      break;
    EXPECT_GT(row.line, last) << row.id;
    last = row.line;
  }
  EXPECT_EQ(megatron_rule_table().front().id, "world_divisible");
  EXPECT_EQ(megatron_rule_table().back().id, "vpp_microbatch_remainder");
}

TEST(megatron_rule_table, messages_fill_their_placeholders) {
  const auto& row = megatron_rule_info(megatron_rule::heads_tp);
  EXPECT_EQ(render_rule_message(row, {{"num_attention_heads", "14"},
                                      {"tensor_model_parallel_size", "4"}}),
            "num_attention_heads (14) must be a multiple of tensor_model_parallel_size (4).");
  EXPECT_EQ(render_rule_message(row, {{"num_attention_heads", "14"}}),
            "num_attention_heads (14) must be a multiple of tensor_model_parallel_size "
            "({tensor_model_parallel_size}).");
  const rule_violation bare{"hidden_heads", "", &megatron_rule_info(megatron_rule::hidden_heads)};
  EXPECT_EQ(bare.python_line(), "AssertionError");
  const rule_violation own{"sp_without_tp", "text", nullptr};
  EXPECT_EQ(own.python_line(), "");
  EXPECT_EQ(python_error_name(python_error::runtime), "RuntimeError");
}

// --- every row refuses its case with Megatron-LM's words ----------------------

TEST(megatron_rules, each_row_refuses_its_command_line_as_megatron_does) {
  std::set<std::string> covered;
  for (const auto& rc : test::megatron_rule_cases()) {
    SCOPED_TRACE(rc.rule);
    const auto v = check_megatron_launch(test::rule_case_launch(rc), rc.world_size);
    ASSERT_FALSE(v.empty());
    EXPECT_EQ(v.front().rule, rc.rule);
    EXPECT_EQ(v.front().python_line(), rc.python_line);
    ASSERT_NE(v.front().source, nullptr);
    EXPECT_EQ(v.front().source->id, rc.rule);
    covered.insert(rc.rule);
  }
  for (const auto& row : megatron_rule_table())
    EXPECT_TRUE(covered.count(std::string(row.id))) << "no case for " << row.id;
}

TEST(megatron_rules, command_lines_megatron_accepts_pass) {
  EXPECT_TRUE(check_megatron_launch(parse_megatron_args(test::rule_case_base_args()), 8).empty());
  for (const auto& [name, more] : test::megatron_accepted_cases()) {
    auto args = test::rule_case_base_args();
    args.insert(args.end(), more.begin(), more.end());
    const auto v = check_megatron_launch(parse_megatron_args(args), 8);
    EXPECT_TRUE(v.empty()) << name << ": " << (v.empty() ? "" : v.front().message);
  }
}

// --- the guard on what paratune renders ---------------------------------------

TEST(megatron_rules, valid_configuration_has_no_violation) {
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), base(), 8).empty());
}

TEST(megatron_rules, world_size_must_divide_by_model_parallel_size) {
  auto c = base(); c.tp = 4; c.pp = 4; // 16 does not divide 8
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].rule, "world_divisible");
  EXPECT_EQ(v[0].python_line(), "AssertionError: world size (8) is not divisible by "
                                "total_model_size (total_model_size=16)");
}

TEST(megatron_rules, heads_must_divide_by_tp) {
  model_spec m = rules_llama3_8b(); m.heads = 14; m.kv_heads = 2; m.hidden = 896;
  auto c = base(); c.tp = 4; c.pp = 2; c.gbs = 1536;
  auto v = check_megatron_rules(m, c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"heads_tp"});
  EXPECT_EQ(v[0].python_line(), "ValueError: num_attention_heads (14) must be a multiple of "
                                "tensor_model_parallel_size (4).");
}

TEST(megatron_rules, query_groups_multiple_or_divisor_of_tp) {
  model_spec m = rules_llama3_8b(); m.kv_heads = 8;
  auto c = base(); c.tp = 8; c.pp = 1;
  EXPECT_TRUE(check_megatron_rules(m, c, 8).empty()); // 8 % 8
  m.kv_heads = 4; // a divisor of 8
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
  EXPECT_EQ(v[0].python_line(), "AssertionError");
  m.head_dim = 128; // --kv-channels given: Megatron-LM does not divide
  EXPECT_TRUE(check_megatron_rules(m, base(), 8).empty());
}

TEST(megatron_rules, global_batch_divisible_by_micro_times_dp) {
  auto c = base(); c.gbs = 6; c.mbs = 4; // dp = 2, 6 % 8 != 0
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"eval_batch_divisible"});
  EXPECT_EQ(v[0].message, "eval_global_batch_size (6) must be divisible by eval_micro_batch_size "
                          "(4) * data_parallel_size (2) * gtp_weight_remat_size (1)");
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
  auto v = check_megatron_rules(m, c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"uneven_middle"});
  EXPECT_EQ(v[0].message, "number of layers at middle stage: 23 must be divisible bythe middle "
                          "pipeline model parallel size 2");
  c.pp = 1; c.tp = 2; c.first_pp_layers = 4; c.last_pp_layers = 0;
  v = check_megatron_rules(m, c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"uneven_mismatch"});
  EXPECT_EQ(v[0].message, "Mismatch: 28 middle layers remaining but 0 middle PP stages available.");
}

TEST(megatron_rules, uneven_stages_with_virtual_stages_render_per_rank) {
  // Megatron-LM takes an uneven split with --num-virtual-stages-per-pipeline-rank
  // only; paratune renders that, and the rows of TransformerConfig check it.
  auto c = base(); c.tp = 1; c.pp = 4; c.vpp = 2; c.first_pp_layers = 4; c.last_pp_layers = 4;
  const auto m = rules_llama3_8b(); // 24 middle layers, 12 per rank, 6 per virtual stage
  EXPECT_TRUE(check_megatron_rules(m, c, 8).empty());
  const auto f = rendered_flags(m, c);
  EXPECT_EQ(f.virtual_stages, 2);
  EXPECT_EQ(f.layers_per_virtual_stage, 0);
  c.first_pp_layers = 3; c.last_pp_layers = 5;
  const auto v = check_megatron_rules(m, c, 8);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].python_line(), "ValueError: number of layers at first stage: 3must be divisible "
                                "by virtual pipelineparallel degree 2");
}

TEST(megatron_rules, sequence_parallel_without_tp_is_paratunes_own_refusal) {
  // Megatron-LM starts it, turning sequence parallelism off: paratune refuses
  // it as a duplicate, and says it is its own rule.
  auto c = base(); c.tp = 1; c.sp = true;
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"sp_without_tp"});
  EXPECT_EQ(v[0].source, nullptr);
  EXPECT_TRUE(check_megatron_arguments(rules_llama3_8b(), c, rendered_flags(rules_llama3_8b(), c), 8)
                .empty());
}

TEST(megatron_rules, overlap_param_gather_needs_grad_reduce_and_distributed_optimizer) {
  auto c = base(); c.overlap_param = true;
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), (std::vector<std::string>{"overlap_param_needs_dist_opt",
                                                   "overlap_param_needs_overlap_grad"}));
  EXPECT_EQ(v[0].message, "--overlap-param-gather only supported with distributed optimizer, "
                          "megatron fsdp, or dist_muon");
  c.dist_opt = true; // the distributed optimizer alone is not enough
  v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"overlap_param_needs_overlap_grad"});
  EXPECT_EQ(v[0].python_line(),
            "AssertionError: Must use --overlap-param-gather with --overlap-grad-reduce");
  c.overlap_grad = true;
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
  auto v = check_megatron_rules(rules_moe(), c, 16);
  EXPECT_EQ(rules_of(v), std::vector<std::string>{"experts_ep"});
  c.ep = 2;
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"ep_needs_experts"});
  c.ep = 8; c.tp = 2; // 2 * 8 * 1 = 16 does not divide 8
  v = check_megatron_rules(rules_moe(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"world_expert_grid"});
  EXPECT_EQ(v[0].python_line(), "RuntimeError: world_size (8) is not divisible by "
                                "expert_tensor_model_pipeline_parallel size (16)");
}

TEST(megatron_rules, moe_biases_follow_the_model_and_need_expert_tp_one) {
  // TransformerConfig keeps biases in MoE layers only with expert tensor
  // parallelism 1, and expert TP follows TP: Megatron-LM's default command
  // line refuses MoE with TP 2. A model without linear biases (every Llama-
  // or Qwen-style MoE) says --disable-bias-linear and starts.
  auto c = base(); c.tp = 2; c.pp = 1; c.ep = 4;
  const auto m = rules_moe();
  EXPECT_TRUE(check_megatron_rules(m, c, 8).empty());
  megatron_launch l;
  l.model = m;
  l.config = c;
  const auto args = render_megatron_args(l);
  EXPECT_NE(std::find(args.begin(), args.end(), "--disable-bias-linear"), args.end());
  EXPECT_TRUE(check_megatron_launch(parse_megatron_args(args), 8).empty());
  // A MoE model with biases renders them, and the guard refuses TP 2 as
  // Megatron-LM would.
  auto biased = m;
  biased.bias_linear = true;
  const auto v = check_megatron_rules(biased, c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"moe_bias_etp"});
  EXPECT_EQ(v[0].python_line(), "AssertionError: Bias in Moe is only supported when ETP==1");
  megatron_flags with_biases = rendered_flags(biased, c);
  EXPECT_TRUE(with_biases.bias_linear);
  with_biases.expert_tp = 1; // the other way out
  EXPECT_TRUE(check_megatron_arguments(biased, c, with_biases, 8).empty());
  // A dense model with Megatron-LM's default biases renders no flag.
  l.model = rules_llama3_8b();
  l.model.bias_linear = true;
  l.config.ep = 1;
  const auto dense = render_megatron_args(l);
  EXPECT_EQ(std::find(dense.begin(), dense.end(), "--disable-bias-linear"), dense.end());
}

TEST(megatron_rules, top_one_routing_renders_the_pre_softmax) {
  model_spec m = rules_moe(); m.topk = 1;
  auto c = base(); c.tp = 1; c.pp = 1;
  EXPECT_TRUE(check_megatron_rules(m, c, 8).empty());
  EXPECT_TRUE(rendered_flags(m, c).router_pre_softmax);
  auto f = rendered_flags(m, c);
  f.router_pre_softmax = false;
  EXPECT_EQ(rules_of(check_megatron_arguments(m, c, f, 8)),
            std::vector<std::string>{"router_topk_one"});
}

TEST(megatron_rules, interleaved_schedule_rules) {
  auto c = base(); c.tp = 1; c.pp = 2; c.vpp = 2;
  // pp 2 is enough (p2p overlap is on by default); paratune once asked pp > 2.
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), c, 8).empty());
  c.pp = 1;
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"vpp_needs_pp"});
  EXPECT_EQ(v[0].message, "When interleaved schedule is used, pipeline-model-parallel size "
                          "should be greater than 1");
  c.pp = 4; c.vpp = 3; // 8 layers per stage do not split into 3
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"vpp_not_layers_per_stage"});
  c.vpp = 2; c.gbs = 6; c.mbs = 1; // dp 2, 3 micro-batches for 4 stages
  v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"vpp_microbatch_range"});
  EXPECT_EQ(v[0].message, "The number of contiguous micro-batches in a virtual pipeline "
                          "stageshould range in [PP=4 , M=3]");
  c.gbs = 10; // 5 micro-batches: one left over
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"vpp_microbatch_remainder"});
  c.gbs = 16;
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), c, 8).empty());
}

TEST(megatron_rules, recompute_layers_need_full_and_fit_the_stage) {
  auto c = base(); c.recompute = recompute_mode::selective; c.recompute_layers = 2;
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"recompute_layers_needs_full"});
  c.recompute = recompute_mode::full; c.recompute_layers = 17; // 16 per stage
  EXPECT_EQ(rules_of(check_megatron_rules(rules_llama3_8b(), c, 8)),
            std::vector<std::string>{"recompute_layers_range"});
  c.recompute_layers = 16;
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), c, 8).empty());
}

// Uniform chunks of one layer are what recompute_layers 0 launches: the
// second spelling is refused, so no trial runs the same command twice.
TEST(megatron_rules, uniform_recompute_of_one_layer_is_the_default_launch) {
  auto c = base(); c.recompute = recompute_mode::full; c.recompute_layers = 1;
  auto v = check_megatron_rules(rules_llama3_8b(), c, 8);
  ASSERT_EQ(rules_of(v), std::vector<std::string>{"recompute_uniform_one_layer"});
  EXPECT_EQ(v[0].message, "recompute_layers 1 with the uniform method is the launch of "
                          "recompute_layers 0 (--recompute-num-layers 1: every layer its own "
                          "recompute chunk, Megatron-LM's default): the same run");
  c.recompute_layers = 0;
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), c, 8).empty());
  megatron_launch zero;
  zero.model = rules_llama3_8b();
  zero.config = c;
  megatron_launch one = zero;
  one.config.recompute_layers = 1;
  EXPECT_EQ(render_megatron_args(zero), render_megatron_args(one));
  c.recompute_block = true; c.recompute_layers = 1; // block: one layer per stage, not all
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), c, 8).empty());
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
  // 126 layers over 8 stages: --num-layers-per-virtual-pipeline-stage 1 is refused.
  EXPECT_EQ(rules_of(check_megatron_rules(m, c, 1024)),
            (std::vector<std::string>{"vpp_layers_pp"}));
  c.pp_account_embedding = c.pp_account_loss = true; // 128 = 8 x 8 x 2
  EXPECT_TRUE(check_megatron_rules(m, c, 1024).empty());
  EXPECT_EQ(pipeline_split_layers(m, c), 128);
  EXPECT_EQ(stage_layers(m, c), (std::vector<int>{15, 16, 16, 16, 16, 16, 16, 15}));
  c.pp_account_loss = false; // 127 does not divide by 8
  const auto v = check_megatron_rules(m, c, 1024);
  ASSERT_EQ(rules_of(v), (std::vector<std::string>{"vpp_layers_pp"}));
  EXPECT_EQ(v[0].message, "number of layers of the model must be divisible pipeline model "
                          "parallel size");
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
  EXPECT_EQ(v[0].message, "num_layers_in_first_pipeline_stage and "
                          "num_layers_in_last_pipeline_stage cannot beset at the same time with "
                          "account_for_embedding_in_pipeline_splitand "
                          "account_for_loss_in_pipeline_split");
}

TEST(megatron_rules, one_kernel_queue_is_asked_for_tp_or_cp_before_blackwell) {
  training_config c = base();
  c.pp = 1;
  megatron_flags f = rendered_flags(rules_llama3_8b(), c);
  // paratune's trial environment sets CUDA_DEVICE_MAX_CONNECTIONS=1 here.
  EXPECT_TRUE(f.one_kernel_queue);
  EXPECT_TRUE(check_megatron_rules(rules_llama3_8b(), c, 8).empty());
  f.one_kernel_queue = false;
  for (int arch : {0, 8, 9})
    for (auto [tp, cp] : {std::pair{2, 1}, std::pair{1, 2}}) {
      c.tp = tp;
      c.cp = cp;
      f.device_arch = arch;
      EXPECT_EQ(rules_of(check_megatron_arguments(rules_llama3_8b(), c, f, 8)),
                std::vector<std::string>{"one_kernel_queue"})
        << arch << " tp" << tp << " cp" << cp;
    }
  f.device_arch = 10;
  EXPECT_TRUE(check_megatron_arguments(rules_llama3_8b(), c, f, 8).empty());
  f.device_arch = 9;
  for (bool megatron_fsdp : {false, true}) {
    megatron_flags g = f;
    g.megatron_fsdp = megatron_fsdp;
    g.torch_fsdp2 = !megatron_fsdp;
    EXPECT_TRUE(check_megatron_arguments(rules_llama3_8b(), c, g, 8).empty());
  }
  c.tp = c.cp = 1;
  EXPECT_TRUE(check_megatron_arguments(rules_llama3_8b(), c, f, 8).empty());
  const auto parsed = parse_megatron_args({"--use-torch-fsdp2", "--use-megatron-fsdp",
                                           "--overlap-moe-expert-parallel-comm"});
  EXPECT_TRUE(parsed.flags.torch_fsdp2);
  EXPECT_TRUE(parsed.flags.megatron_fsdp);
  EXPECT_TRUE(parsed.flags.overlap_moe_ep_comm);
}

// The guard and paratune-sim agree by construction: the Megatron-LM rows the
// guard applies to a configuration are those the sim applies to the command
// line paratune renders for it, over a grid of every key.
TEST(megatron_rules, the_guard_sees_what_the_rendered_command_line_says) {
  int checked = 0, refused = 0;
  for (const auto& m : {rules_llama3_8b(), rules_moe()})
    for (int tp : {1, 2, 3, 4})
      for (int pp : {1, 2, 4})
        for (int vpp : {1, 2, 3})
          for (int ep : {1, 2, 8})
            for (int first : {0, 4, 7})
              for (int gbs : {6, 16, 512})
                for (int bits = 0; bits < 8; ++bits) {
                  training_config c = base();
                  c.tp = tp; c.pp = pp; c.vpp = vpp; c.ep = ep; c.gbs = gbs;
                  c.first_pp_layers = first; c.last_pp_layers = first;
                  c.overlap_param = bits & 1;
                  c.overlap_grad = bits & 2;
                  c.dist_opt = bits & 4;
                  c.pp_account_embedding = first == 0 && pp == 4 && (bits & 1);
                  c.recompute = ep == 8 ? recompute_mode::full : recompute_mode::none;
                  megatron_launch l;
                  l.model = m;
                  l.config = c;
                  const auto parsed = parse_megatron_args(render_megatron_args(l));
                  std::vector<std::string> guard;
                  for (const auto& v : check_megatron_rules(m, c, 8))
                    if (v.source)
                      guard.push_back(v.rule);
                  const auto sim = rules_of(check_megatron_launch(parsed, 8));
                  EXPECT_EQ(guard, sim) << canonical_key(c) << " on " << m.experts << " experts";
                  ++checked;
                  refused += !guard.empty();
                }
  EXPECT_GT(checked, 5000);
  EXPECT_GT(refused, 1000);
}

} // namespace
} // namespace paratune
