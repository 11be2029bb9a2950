#include "core/perf/perf_model.hpp"

#include <gtest/gtest.h>

#include "core/perf/collectives.hpp"
#include "core/perf/memory_model.hpp"
#include "core/perf/perf_context.hpp"
#include "validation/reference_specs.hpp"

namespace paratune {
namespace {

using reference::dgx_a100;
using reference::gpt;
using reference::llama3_8b;

training_config llama_config(int tp, int pp, int mbs = 1) {
  training_config c;
  c.tp = tp; c.pp = pp; c.mbs = mbs; c.gbs = 512; c.seq = 8192;
  c.dist_opt = true; c.overlap_grad = true; c.overlap_param = true;
  return c;
}

TEST(perf_memory, bytes_per_param_follow_megatron_table) {
  EXPECT_DOUBLE_EQ(bytes_per_param(precision::bf16, false, 8).total(), 18);
  EXPECT_DOUBLE_EQ(bytes_per_param(precision::bf16, true, 4).total(), 6 + 12.0 / 4);
  EXPECT_DOUBLE_EQ(bytes_per_param(precision::fp16, false, 8).total(), 20);
  EXPECT_DOUBLE_EQ(bytes_per_param(precision::fp16, true, 8).total(), 4 + 16.0 / 8);
}

TEST(perf_memory, gpt_layer_activation_is_korthikanti_34_sbh) {
  // With flash attention and dropout masks a GPT layer keeps 34 s b h bytes
  // without TP, and 10 + 24/t with TP (no SP), 34/t with SP.
  const model_spec m = gpt(24, 2048, 16);
  const cluster_spec cl = dgx_a100();
  training_config c; c.seq = 2048; c.mbs = 1; c.gbs = 8;
  const double sbh = 2048.0 * 2048;
  auto x = make_context(m, cl, 8, c, precision::bf16, {});
  EXPECT_DOUBLE_EQ(layer_activation_bytes(x), 34 * sbh);
  c.tp = 8;
  x = make_context(m, cl, 8, c, precision::bf16, {});
  EXPECT_DOUBLE_EQ(layer_activation_bytes(x), (10 + 24.0 / 8) * sbh);
  c.sp = true;
  x = make_context(m, cl, 8, c, precision::bf16, {});
  EXPECT_DOUBLE_EQ(layer_activation_bytes(x), 34.0 / 8 * sbh);
}

TEST(perf_memory, one_f_one_b_and_interleaved_in_flight_counts) {
  const model_spec m = gpt(96, 12288, 96);
  training_config c; c.tp = 8; c.pp = 8; c.gbs = 64; c.mbs = 1;
  auto x = make_context(m, dgx_a100(), 64, c, precision::bf16, {});
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(x, 0), 8);
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(x, 7), 1);
  c.vpp = 3;
  x = make_context(m, dgx_a100(), 64, c, precision::bf16, {});
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(x, 0), 8 * (1 + 7.0 / 24));
}

TEST(perf_collectives, ring_factors) {
  group_link g;
  g.size = 8;
  g.bytes_per_s = 1e9;
  g.latency_s = 0;
  EXPECT_DOUBLE_EQ(all_reduce_time(g, 8e9), 2 * 7.0 / 8 * 8);
  EXPECT_DOUBLE_EQ(reduce_scatter_time(g, 8e9), 7.0 / 8 * 8);
  EXPECT_DOUBLE_EQ(all_gather_time(g, 8e9), 7.0 / 8 * 8);
}

TEST(perf_collectives, tp_inside_a_node_uses_nvlink_dp_across_nodes_uses_ib) {
  const cluster_spec cl = dgx_a100();
  const auto& prof = profile_for(cl.device);
  EXPECT_FALSE(link_for_group(cl, prof, {}, 8, 1).crosses_nodes);
  const group_link dp = link_for_group(cl, prof, {}, 4, 8);
  EXPECT_TRUE(dp.crosses_nodes);
  EXPECT_NEAR(dp.bytes_per_s, 25e9 * prof.scale_out_efficiency, 1);
}

TEST(perf_model, recompute_trades_time_for_memory) {
  const model_spec m = llama3_8b();
  training_config c = llama_config(2, 1);
  const auto none = predict(m, dgx_a100(), 8, c, precision::bf16);
  c.recompute = recompute_mode::full;
  const auto full = predict(m, dgx_a100(), 8, c, precision::bf16);
  EXPECT_LT(full.peak_memory_mib, none.peak_memory_mib - 10000);
  EXPECT_GT(full.iteration_time_s, none.iteration_time_s * 1.2);
  EXPECT_NEAR(full.hfu / full.mfu, 1.3, 0.05);
  EXPECT_DOUBLE_EQ(none.hfu, none.mfu);
  // Hardware FLOPs are the model's plus the recomputed ones: never fewer.
  EXPECT_GT(full.hardware_tflops_per_gpu, full.tflops_per_gpu);
  EXPECT_NEAR(full.hardware_tflops_per_gpu / full.tflops_per_gpu, full.hfu / full.mfu, 1e-9);
}

TEST(perf_model, mfu_conventions_are_consistent) {
  const auto p = predict(llama3_8b(), dgx_a100(), 8, llama_config(2, 1), precision::bf16);
  EXPECT_GT(p.iteration_time_s, 0);
  // paratune's one MFU: Megatron-LM's model FLOPs (attention whole, as its
  // logs and published tables count) over the bf16 peak, 312 on an A100.
  EXPECT_NEAR(p.mfu, p.tflops_per_gpu / 312, 1e-12);
  EXPECT_DOUBLE_EQ(p.peak_tflops, 312);
  EXPECT_NEAR(p.mfu_full_attention, p.mfu, 1e-12); // bf16: the same peak
  EXPECT_NEAR(p.mfu_causal / p.mfu, 0.889, 0.001);
  // What flash attention runs, the causal half, is the model's own bound.
  EXPECT_NEAR(p.kernel_utilization, p.mfu_causal, 1e-12);
  // No recomputation: the hardware did the model's FLOPs.
  EXPECT_DOUBLE_EQ(p.hfu, p.mfu);
  EXPECT_DOUBLE_EQ(p.hardware_tflops_per_gpu, p.tflops_per_gpu);
  EXPECT_EQ(p.stages.size(), 1u);
  EXPECT_NEAR(p.tokens_per_s_per_gpu * p.iteration_time_s * 8, 512.0 * 8192, 1e-3);
}

TEST(perf_model, single_gpu_llama3_8b_does_not_fit) {
  // Micro-batch 2 does not fit even at the band's low end (-15.5%).
  const auto p = predict(llama3_8b(), dgx_a100(), 8, llama_config(1, 1, 2), precision::fp16);
  EXPECT_FALSE(p.fits);
  EXPECT_EQ(p.limiting_factor, "memory");
  // Micro-batch 1, OptiCo's first OOM at a predicted 91.8 GB: within the
  // band's reach of the 80 GB, so tight; only a run can tell.
  const auto one = predict(llama3_8b(), dgx_a100(), 8, llama_config(1, 1), precision::fp16);
  EXPECT_NEAR(one.peak_memory_mib, 91806, 1);
  EXPECT_EQ(one.memory, memory_verdict::tight);
}

TEST(perf_model, pipeline_reports_every_stage) {
  const auto p = predict(llama3_8b(), dgx_a100(), 8, llama_config(2, 4), precision::fp16);
  ASSERT_EQ(p.stages.size(), 4u);
  EXPECT_GT(p.time.bubble_s, 0);
  EXPECT_GT(p.stages.back().logits_mib, 0);
  EXPECT_DOUBLE_EQ(p.stages.front().logits_mib, 0);
}

} // namespace
} // namespace paratune
