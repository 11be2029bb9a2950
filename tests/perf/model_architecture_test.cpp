// The memory and FLOP models count what the model's architecture adds:
// biases, a learned position table, QK normalization and shared experts.

#include <gtest/gtest.h>

#include "core/perf/flops.hpp"
#include "core/perf/memory_model.hpp"
#include "core/perf/perf_context.hpp"
#include "validation/reference_specs.hpp"

namespace paratune {
namespace {

training_config architecture_config(int tp) {
  training_config c;
  c.tp = tp; c.pp = 1; c.mbs = 1; c.gbs = 64; c.seq = 4096;
  return c;
}

perf_context context_of(const model_spec& m, const training_config& c) {
  return make_context(m, reference::dgx_a100(), 8, c, precision::bf16, perf_calibration{});
}

// Qwen2.5-7B's attention: 28 heads of 128, 4 query groups, h 3584.
model_spec qwen_like() {
  model_spec m = reference::llama3_8b();
  m.layers = 28; m.hidden = 3584; m.heads = 28; m.kv_heads = 4; m.ffn = 18944;
  return m;
}

TEST(model_architecture, qkv_bias_adds_q_plus_two_kv_per_layer) {
  const auto c = architecture_config(2);
  auto m = qwen_like();
  const auto none = context_of(m, c);
  m.qkv_bias = true;
  const auto qkv = context_of(m, c);
  // (28 + 2 x 4) x 128 = 4608 per layer, split over TP with the QKV columns.
  EXPECT_DOUBLE_EQ(qkv.layer_params - none.layer_params, 4608);
  EXPECT_DOUBLE_EQ(qkv.layer_replicated_params, none.layer_replicated_params);
  EXPECT_DOUBLE_EQ(m.parameters() - qwen_like().parameters(), 28 * 4608.0);
  EXPECT_DOUBLE_EQ(params_on_stage(qkv, 0).dense - params_on_stage(none, 0).dense,
                   28 * 4608.0 / 2);
}

TEST(model_architecture, linear_biases_count_every_projection) {
  const auto c = architecture_config(1);
  auto m = reference::gpt(24, 1024, 16, 51200);
  m.bias_linear = false;
  const auto none = context_of(m, c);
  m.bias_linear = true;
  const auto biased = context_of(m, c);
  // QKV 3 x 1024, out 1024, fc1 4096, fc2 1024.
  EXPECT_DOUBLE_EQ(biased.layer_params - none.layer_params, 3 * 1024 + 1024 + 4096 + 1024);
  // The row-parallel ones (out projection, fc2) are whole on every TP rank.
  EXPECT_DOUBLE_EQ(biased.layer_replicated_params - none.layer_replicated_params, 2 * 1024);
}

TEST(model_architecture, a_learned_position_table_sits_on_the_first_stage) {
  auto c = architecture_config(2);
  c.pp = 2;
  auto m = reference::gpt(24, 1024, 16, 51200);
  const auto learned = context_of(m, c);
  m.position = position_embedding::rope;
  const auto rope = context_of(m, c);
  // 4096 positions x 1024, a plain embedding: whole on each TP rank.
  EXPECT_DOUBLE_EQ(learned.position_params, 4096.0 * 1024);
  EXPECT_DOUBLE_EQ(params_on_stage(learned, 0).dense - params_on_stage(rope, 0).dense,
                   4096.0 * 1024);
  EXPECT_DOUBLE_EQ(params_on_stage(learned, 1).dense, params_on_stage(rope, 1).dense);
  // Rope keeps new Q and K instead: 2 B x (1024 / 2 + 1024 / 2) per token.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(rope) - layer_activation_bytes(learned),
                   4096.0 * 2 * (512 + 512));
}

TEST(model_architecture, qk_layernorm_keeps_q_and_k_and_adds_two_norms) {
  const auto c = architecture_config(2);
  auto m = reference::llama3_8b();
  const auto plain = context_of(m, c);
  m.qk_layernorm = true;
  const auto normed = context_of(m, c);
  // RMSNorm over the 128-wide head for Q and for K.
  EXPECT_DOUBLE_EQ(normed.layer_replicated_params - plain.layer_replicated_params, 2 * 128);
  // Q (4096 / 2) and K (1024 / 2) in 2 B per token of the micro-batch.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(normed) - layer_activation_bytes(plain),
                   4096.0 * 2 * (2048 + 512));
}

TEST(model_architecture, a_shared_expert_costs_a_dense_mlp_on_every_token) {
  const auto c = architecture_config(2);
  auto m = reference::llama3_8b();
  m.layers = 16; m.experts = 8; m.topk = 2; m.moe_ffn = 4096;
  const auto routed = context_of(m, c);
  m.shared_expert_ffn = 2048;
  const auto shared = context_of(m, c);
  // Three 4096 x 2048 matrices per layer, dense (not expert-parallel).
  EXPECT_DOUBLE_EQ(shared.layer_params - routed.layer_params, 3.0 * 4096 * 2048);
  EXPECT_DOUBLE_EQ(shared.layer_expert_params, routed.layer_expert_params);
  // 6 FLOPs per parameter and token (forward and backward) over 64 x 4096
  // tokens and 16 layers.
  const double expected = 6.0 * 64 * 4096 * 16 * 3 * 4096 * 2048;
  EXPECT_NEAR(model_flops_noncausal(shared) - model_flops_noncausal(routed), expected,
              1e-9 * expected);
  // fc1 (2 x 2048) and the activation (2048), 2 B each, split over TP 2.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(shared) - layer_activation_bytes(routed),
                   4096.0 * (2 * 4096 + 2 * 2048) / 2);
}

} // namespace
} // namespace paratune
