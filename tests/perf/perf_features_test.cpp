// Each configuration knob moves time and memory the way Megatron-LM does.

#include <gtest/gtest.h>

#include <cmath>

#include "core/perf/memory_model.hpp"
#include "core/perf/perf_context.hpp"
#include "core/perf/perf_model.hpp"
#include "validation/reference_specs.hpp"

namespace paratune {
namespace {

using reference::dgx_a100;
using reference::gpt;
using reference::llama3_8b;

model_spec small_moe() {
  model_spec m = llama3_8b();
  m.name = "moe";
  m.layers = 16;
  m.experts = 8;
  m.topk = 2;
  m.moe_ffn = 4096;
  return m;
}

training_config base(int tp, int pp) {
  training_config c;
  c.tp = tp; c.pp = pp; c.mbs = 1; c.gbs = 256; c.seq = 4096;
  c.dist_opt = c.overlap_grad = c.overlap_param = true;
  return c;
}

perf_prediction run(const training_config& c, const model_spec& m = llama3_8b(),
                    int world = 8) {
  return predict(m, dgx_a100(), world, c, precision::bf16);
}

TEST(perf_features, fused_cross_entropy_saves_a_little_time_and_memory) {
  auto c = base(2, 1);
  const auto plain = run(c);
  c.fused_ce = true;
  const auto fused = run(c);
  // 4 instead of 6 bytes per logit: 2 B x 4096 x 64128 = 501 MiB plus slack.
  EXPECT_NEAR(plain.peak.logits_mib - fused.peak.logits_mib, 501, 1);
  EXPECT_LT(fused.iteration_time_s, plain.iteration_time_s);
  EXPECT_GT(fused.iteration_time_s, 0.97 * plain.iteration_time_s);
}

TEST(perf_features, interleaving_shrinks_the_bubble) {
  auto c = base(1, 4);
  c.gbs = 64;
  const auto flat = run(c);
  c.vpp = 2;
  const auto inter = run(c);
  EXPECT_NEAR(inter.time.bubble_s / flat.time.bubble_s, 0.5, 0.02);
  EXPECT_GT(inter.time.pp_comm_s, flat.time.pp_comm_s);
  // and holds more activations on stage 0: 1 + (p-1)/(p v) = 1.375.
  EXPECT_NEAR(inter.stages[0].activations_mib / flat.stages[0].activations_mib, 1.375, 0.01);
}

TEST(perf_features, grad_overlap_hides_data_parallel_time) {
  auto c = base(1, 2);
  c.overlap_grad = c.overlap_param = false;
  const auto exposed = run(c, llama3_8b(), 32);
  c.overlap_grad = c.overlap_param = true;
  const auto hidden = run(c, llama3_8b(), 32);
  EXPECT_LT(hidden.time.dp_comm_s, 0.5 * exposed.time.dp_comm_s);
}

TEST(perf_features, distributed_optimizer_shards_the_optimizer_state) {
  auto c = base(2, 1);
  c.dist_opt = c.overlap_param = false;
  const auto plain = run(c);
  c.dist_opt = true;
  const auto sharded = run(c);
  EXPECT_NEAR(sharded.peak.optimizer_mib * 4, plain.peak.optimizer_mib, 1e-6);
  EXPECT_DOUBLE_EQ(sharded.peak.gradients_mib, plain.peak.gradients_mib);
}

TEST(perf_features, sequence_parallel_splits_the_replicated_activations) {
  auto c = base(4, 1);
  const auto tp = run(c);
  c.sp = true;
  const auto sp = run(c);
  // Llama layer: 8 replicated + 28.5 split s*b*h bytes -> (8 + 28.5) / 4.
  EXPECT_NEAR(sp.peak.activations_mib / tp.peak.activations_mib,
              (36.5 / 4) / (8 + 28.5 / 4), 0.01);
}

TEST(perf_features, block_recompute_sits_between_none_and_full) {
  auto c = base(2, 1);
  const auto none = run(c);
  c.recompute = recompute_mode::full;
  const auto full = run(c);
  c.recompute_block = true;
  c.recompute_layers = 16;
  const auto half = run(c);
  EXPECT_LT(full.peak.activations_mib, half.peak.activations_mib);
  EXPECT_LT(half.peak.activations_mib, none.peak.activations_mib);
  EXPECT_LT(none.iteration_time_s, half.iteration_time_s);
  EXPECT_LT(half.iteration_time_s, full.iteration_time_s);
  EXPECT_NEAR(half.hfu / half.mfu - 1, (full.hfu / full.mfu - 1) / 2, 1e-9);
}

TEST(perf_features, uneven_pipeline_moves_memory_off_the_first_stage) {
  auto c = base(1, 4);
  const auto even = run(c);
  c.first_pp_layers = 5;
  c.last_pp_layers = 9;
  const auto uneven = run(c);
  EXPECT_LT(uneven.stages[0].total_mib, even.stages[0].total_mib);
  EXPECT_GT(uneven.stages[3].weights_mib, even.stages[3].weights_mib);
}

TEST(perf_features, accounted_embedding_and_loss_move_a_layer_off_the_end_stages) {
  model_spec m = llama3_8b(); m.layers = 30; // 32 = 30 + 2 over 4 stages: 7, 8, 8, 7
  auto c = base(1, 4);
  // 30 over 4 does not divide: unaccounted, the fallback spreads 8, 8, 7, 7.
  const auto spread = predict(m, dgx_a100(), 8, c, precision::bf16);
  c.pp_account_embedding = c.pp_account_loss = true;
  const auto p = predict(m, dgx_a100(), 8, c, precision::bf16);
  EXPECT_EQ(make_context(m, dgx_a100(), 8, c, precision::bf16, {}).stage_layers,
            (std::vector<int>{7, 8, 8, 7}));
  EXPECT_LT(p.stages.front().weights_mib, spread.stages.front().weights_mib);
  EXPECT_LT(p.stages.front().activations_mib, spread.stages.front().activations_mib);
  EXPECT_GT(p.stages[2].weights_mib, spread.stages[2].weights_mib);
}

TEST(perf_features, bf16_gradient_reduction_halves_gradients_and_their_reduce) {
  auto c = base(2, 1);
  c.overlap_grad = c.overlap_param = false;
  const auto fp32 = run(c);
  c.grad_reduce_bf16 = true;
  const auto bf16 = run(c);
  EXPECT_NEAR(bf16.peak.gradients_mib, fp32.peak.gradients_mib / 2, 1e-6);
  EXPECT_DOUBLE_EQ(bf16.peak.optimizer_mib, fp32.peak.optimizer_mib);
  // The reduce-scatter moves half the bytes; the 2 B param all-gather stays.
  EXPECT_LT(bf16.time.dp_comm_s, 0.8 * fp32.time.dp_comm_s);
  EXPECT_GT(bf16.time.dp_comm_s, 0.5 * fp32.time.dp_comm_s);
}

// FP8 (Transformer Engine): the FP8 weight and its transpose are cached for
// the transformer layers' GEMMs only (2 B/param), and the saved QKV, fc1 and
// fc2 inputs shrink to 1 B while the out-projection adds its FP8 copy.
TEST(perf_features, fp8_caches_weights_and_saves_gemm_inputs_in_fp8) {
  const auto c = base(1, 1);
  const model_spec m = llama3_8b();
  const auto x16 = make_context(m, reference::dgx_h100(), 8, c, precision::bf16, {});
  const auto x8 = make_context(m, reference::dgx_h100(), 8, c, precision::fp8, {});
  const auto p16 = stage_memory(x16, 0), p8 = stage_memory(x8, 0);
  const double gemm = params_on_stage(x8, 0).gemm_weights;
  EXPECT_NEAR(gemm, 32 * (x8.layer_params - 2 * x8.h), 1); // no embedding, no norms
  EXPECT_NEAR((p8.weights_mib - p16.weights_mib) * 1024 * 1024, 2 * gemm, 1);
  const double tokens = 4096; // mbs 1, seq 4096, h 4096, ffn 14336, q 4096
  EXPECT_NEAR(layer_activation_bytes(x16) - layer_activation_bytes(x8),
              tokens * (2 * 4096 + 14336 - 4096), 1);
}

TEST(perf_features, context_parallel_splits_the_sequence) {
  auto c = base(2, 1);
  c.seq = 8192;
  const auto one = run(c);
  c.cp = 2;
  const auto two = run(c);
  EXPECT_NEAR(two.peak.activations_mib / one.peak.activations_mib, 0.5, 0.01);
  EXPECT_GT(two.time.cp_comm_s + two.time.compute_s, 0);
  EXPECT_NEAR(two.tokens_per_s_per_gpu / one.tokens_per_s_per_gpu, 1.0, 0.25);
}

TEST(perf_features, expert_parallel_splits_experts_and_adds_all_to_all) {
  training_config c = base(1, 1);
  const auto one = run(c, small_moe());
  c.ep = 8;
  const auto eight = run(c, small_moe());
  EXPECT_GT(eight.time.ep_comm_s, 0);
  EXPECT_DOUBLE_EQ(one.time.ep_comm_s, 0);
  EXPECT_LT(eight.peak.weights_mib, one.peak.weights_mib / 3);
}

TEST(perf_features, tp_across_nodes_is_slow) {
  const model_spec m = gpt(32, 4096, 32);
  training_config c = base(8, 1);
  c.seq = 2048;
  const auto inside = run(c, m, 16);
  c.tp = 16;
  const auto across = run(c, m, 16);
  // Twice the micro-batches per TP group, and the ring runs at the NICs'
  // 8 x 25 GB/s instead of NVLink's 300 GB/s.
  EXPECT_GT(across.time.tp_comm_s, 3 * inside.time.tp_comm_s);
  EXPECT_GT(across.iteration_time_s, inside.iteration_time_s);
}

TEST(perf_features, calibration_knobs_move_the_prediction) {
  const auto c = base(2, 2);
  const auto base_p = run(c, llama3_8b(), 32);
  perf_calibration slow;
  slow.gemm_efficiency_scale = 0.8;
  slow.straggler = 1.1;
  slow.memory_overhead_scale = 2.0;
  const auto p = predict(llama3_8b(), dgx_a100(), 32, c, precision::bf16, slow);
  EXPECT_GT(p.iteration_time_s, 1.2 * base_p.iteration_time_s);
  EXPECT_GT(p.peak.overhead_mib, 1.9 * base_p.peak.overhead_mib);
  EXPECT_NEAR(p.time.other_s, p.iteration_time_s * (1 - 1 / 1.1), 1e-9);
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

// Every knob combination yields finite, positive numbers, valid or not by
// Megatron's rules (the screen runs before the rules in some callers).
TEST(perf_features, predictions_are_finite_across_a_sweep) {
  model_spec moe = reference::llama3_8b();
  moe.experts = 8; moe.topk = 2; moe.moe_ffn = 2048;
  int checked = 0;
  for (const model_spec& m : {reference::llama3_8b(), moe, reference::gpt(24, 2048, 16)})
    for (int tp : {1, 2, 8, 16})
      for (int pp : {1, 3, 4})
        for (int cp : {1, 2})
          for (int vpp : {1, 2})
            for (auto rc : {recompute_mode::none, recompute_mode::selective, recompute_mode::full})
              for (bool flags : {false, true}) {
                training_config c;
                c.tp = tp; c.pp = pp; c.cp = cp; c.vpp = vpp; c.recompute = rc;
                c.ep = m.is_moe() && flags ? 4 : 1;
                c.sp = flags && tp > 1;
                c.dist_opt = c.overlap_grad = c.overlap_param = c.fused_ce = flags;
                c.recompute_block = flags;
                c.recompute_layers = flags && rc == recompute_mode::full ? 2 : 0;
                c.mbs = 2; c.gbs = 256; c.seq = 4096;
                const auto p = predict(m, reference::dgx_h100(), 64, c, precision::bf16);
                ASSERT_TRUE(std::isfinite(p.iteration_time_s) && p.iteration_time_s > 0);
                ASSERT_TRUE(std::isfinite(p.peak_memory_mib) && p.peak_memory_mib > 0);
                ASSERT_TRUE(std::isfinite(p.mfu) && p.mfu > 0 && p.mfu < 1);
                ASSERT_EQ(int(p.stages.size()), pp);
                ++checked;
              }
  EXPECT_EQ(checked, 3 * 4 * 3 * 2 * 2 * 3 * 2);
}

} // namespace
} // namespace paratune
