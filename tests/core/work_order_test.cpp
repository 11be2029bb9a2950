// Which configurations only add work to a measured one (work_order.hpp),
// and how a measured run caps the estimate of each (throughput_estimator).

#include <gtest/gtest.h>

#include <cmath>

#include "core/tuning/throughput_estimator.hpp"
#include "core/tuning/work_order.hpp"

namespace paratune {
namespace {

const training_config measured =
  parse_config("tp=4,pp=8,mbs=1,gbs=512,seq=8192,sp=true,recompute=none,dist_opt=true,"
               "overlap_grad=true,overlap_param=true,fused_ce=true");

TEST(work_order, more_recomputation_an_overlap_off_or_the_unfused_loss_only_add_work) {
  EXPECT_TRUE(only_adds_work(parse_config("recompute=selective", measured), measured));
  EXPECT_TRUE(only_adds_work(parse_config("recompute=full,recompute_layers=2", measured), measured));
  EXPECT_TRUE(only_adds_work(parse_config("overlap_grad=false", measured), measured));
  EXPECT_TRUE(only_adds_work(parse_config("overlap_param=false", measured), measured));
  EXPECT_TRUE(only_adds_work(parse_config("fused_ce=false", measured), measured));
  // All of them at once: trial 10 of the Llama-3-70B trace in docs/benchmarks.md.
  EXPECT_TRUE(only_adds_work(parse_config("recompute=selective,overlap_grad=false,"
                                          "overlap_param=false,fused_ce=false",
                                          measured),
                             measured));
}

TEST(work_order, anything_else_is_not_ordered) {
  EXPECT_FALSE(only_adds_work(measured, measured)); // the run itself
  // The other way round: less work.
  const auto full = parse_config("recompute=full", measured);
  EXPECT_FALSE(only_adds_work(measured, full));
  EXPECT_FALSE(only_adds_work(measured, parse_config("overlap_grad=false", measured)));
  // Another split, micro batch or memory saving, alone or beside an added cost.
  EXPECT_FALSE(only_adds_work(parse_config("tp=2", measured), measured));
  EXPECT_FALSE(only_adds_work(parse_config("mbs=2,recompute=full", measured), measured));
  EXPECT_FALSE(only_adds_work(parse_config("sp=false,fused_ce=false", measured), measured));
  EXPECT_FALSE(only_adds_work(parse_config("dist_opt=false,overlap_param=false", measured), measured));
  // Both full: the chunking changes the memory, not an order of work.
  EXPECT_FALSE(only_adds_work(parse_config("recompute_layers=4", full), full));
}

tuning_context llama3_70b_on_64_h100() {
  tuning_context ctx;
  auto& m = ctx.model;
  m.name = "llama3-70b"; m.family = "llama3"; m.layers = 80; m.hidden = 8192; m.heads = 64;
  m.kv_heads = 8; m.ffn = 28672; m.vocab = 128256; m.swiglu = true; m.rmsnorm = true;
  m.tied_embeddings = false;
  ctx.cluster.name = "dgx-h100";
  ctx.cluster.device = {"H100-SXM5-80GB", 989, 1979, 80, 3350, false, 9.0};
  ctx.cluster.devices_per_node = 8;
  ctx.cluster.scale_up = {"NVLink4", 450, 10};
  ctx.cluster.scale_out = {"IB-NDR", 50, 20};
  ctx.world_size = 64;
  ctx.prec = precision::bf16;
  ctx.initial = measured;
  return ctx;
}

trial_outcome ran(const training_config& c, double tflops, double peak_pct) {
  trial_outcome r;
  r.config = c;
  r.tflops_per_gpu = tflops;
  r.mfu = tflops / 989;
  r.memory_limit_mib = 81920;
  r.peak_memory_mib = peak_pct / 100 * r.memory_limit_mib;
  r.gpu_util_pct = 95;
  return r;
}

/// Two measured runs: `measured` 15% under the model, and a split the model
/// underrates by 10%, so that the trend lifts everything near `measured`.
std::vector<trial_outcome> history_with(throughput_estimator& probe, double measured_peak_pct) {
  const auto other = parse_config("tp=8,pp=2", measured);
  return {ran(measured, 0.85 * probe.raw(measured).tflops_per_gpu, measured_peak_pct),
          ran(other, 1.10 * probe.raw(other).tflops_per_gpu, 80)};
}

TEST(throughput_estimator, a_measured_run_caps_what_only_adds_work_to_it) {
  const auto ctx = llama3_70b_on_64_h100();
  const std::vector<trial_outcome> none;
  throughput_estimator probe(ctx, none);
  const auto history = history_with(probe, 80);
  throughput_estimator est(ctx, history);
  const double run = history[0].tflops_per_gpu;
  // The unfused loss, one flag away: the trend lifts it over the run it
  // slows down, and the run's measurement caps it, with the run's precision.
  const auto unfused = est.estimate(parse_config("fused_ce=false", measured));
  EXPECT_DOUBLE_EQ(unfused.tflops, run);
  EXPECT_DOUBLE_EQ(unfused.cap_tflops, run);
  EXPECT_NEAR(unfused.sigma, std::hypot(0.005, 0.01), 1e-12);
  // Selective recomputation with the overlaps off, three changes away, where
  // the trend's part of the correction is larger still.
  const auto slower = parse_config("recompute=selective,overlap_grad=false,overlap_param=false",
                                   measured);
  const auto e = est.estimate(slower);
  EXPECT_DOUBLE_EQ(e.tflops, run);
  EXPECT_DOUBLE_EQ(e.cap_tflops, run);
  EXPECT_NEAR(e.sigma, std::hypot(0.005, 0.01), 1e-12);
  // Not ordered: no cap.
  const auto other = est.estimate(parse_config("mbs=2", measured));
  EXPECT_DOUBLE_EQ(other.cap_tflops, 0);
}

TEST(throughput_estimator, a_run_at_the_memory_limit_does_not_cap_recomputation_that_frees_memory) {
  const auto ctx = llama3_70b_on_64_h100();
  const std::vector<trial_outcome> none;
  throughput_estimator probe(ctx, none);
  const auto full = parse_config("recompute=full", measured);
  const auto selective = parse_config("recompute=selective", measured);
  // The model's memory: full recomputation frees memory, selective (flash
  // attention keeps no score matrix to drop) none.
  ASSERT_LT(probe.raw(full).peak_memory_mib, probe.raw(measured).peak_memory_mib);
  ASSERT_DOUBLE_EQ(probe.raw(selective).peak_memory_mib, probe.raw(measured).peak_memory_mib);
  const auto at_limit = history_with(probe, 98);
  throughput_estimator est(ctx, at_limit);
  EXPECT_DOUBLE_EQ(est.estimate(full).cap_tflops, 0);  // the allocator's relief may pay for it
  EXPECT_DOUBLE_EQ(est.estimate(selective).cap_tflops, at_limit[0].tflops_per_gpu);
  // Just under the line (OptiCo's 95%), full recomputation is capped too.
  const auto under = history_with(probe, 95);
  throughput_estimator roomy(ctx, under);
  EXPECT_DOUBLE_EQ(roomy.estimate(full).cap_tflops, under[0].tflops_per_gpu);
}

TEST(throughput_estimator, a_configuration_run_twice_is_known_by_the_mean_of_its_runs) {
  const auto ctx = llama3_70b_on_64_h100();
  const std::vector<trial_outcome> none;
  throughput_estimator probe(ctx, none);
  auto history = history_with(probe, 80);
  // The same configuration again (on another pool, say), 10.25% faster: the
  // geometric mean of the two is 5% over the first.
  history.push_back(ran(measured, 1.1025 * history[0].tflops_per_gpu, 80));
  throughput_estimator est(ctx, history);
  const double mean = 1.05 * history[0].tflops_per_gpu;
  const auto again = est.estimate(measured);
  EXPECT_TRUE(again.measured);
  EXPECT_EQ(again.nearest, 0);
  EXPECT_NEAR(again.tflops, mean, 1e-9 * mean);
  // What caps the configurations that only add work to it is the same figure.
  const auto unfused = est.estimate(parse_config("fused_ce=false", measured));
  EXPECT_NEAR(unfused.cap_tflops, mean, 1e-9 * mean);
  EXPECT_NEAR(unfused.tflops, mean, 1e-9 * mean);
}

} // namespace
} // namespace paratune
