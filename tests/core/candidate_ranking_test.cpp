// How the reasoner ranks candidates outside the directive: the model
// corrected by measurements (throughput_estimator), the expected gain over
// the incumbent, the risk of running out of memory (candidate_scorer).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/megatron_rules.hpp"
#include "core/tuning/candidate_scorer.hpp"
#include "core/tuning/reasoner.hpp"

namespace paratune {
namespace {

tuning_context gpt3_7b_on_16_a100() {
  tuning_context ctx;
  auto& m = ctx.model;
  m.name = "gpt3-7b"; m.layers = 32; m.hidden = 4096; m.heads = 32; m.kv_heads = 32;
  m.ffn = 16384; m.vocab = 50257; m.rmsnorm = false; m.tied_embeddings = true;
  ctx.cluster.name = "dgx-a100-80g";
  ctx.cluster.device = {"A100-SXM4-80GB", 312, 0, 80, 2039, false};
  ctx.cluster.devices_per_node = 8;
  ctx.cluster.scale_up = {"NVLink3", 300, 10};
  ctx.cluster.scale_out = {"IB-HDR", 25, 20};
  ctx.world_size = 16;
  ctx.prec = precision::fp16;
  ctx.initial = parse_config("tp=1,pp=1,mbs=1,gbs=1024,seq=4096,recompute=full");
  ctx.search = {{"mbs", {"1", "2", "4"}}, {"tp", {"1", "2", "4", "8"}}, {"pp", {"1", "2", "4"}},
                {"recompute", {"none", "selective", "full"}}, {"sp", {"false", "true"}},
                {"dist_opt", {"false", "true"}}, {"overlap_grad", {"false", "true"}},
                {"overlap_param", {"false", "true"}}, {"fused_ce", {"false", "true"}}};
  return ctx;
}

/// A successful run that measured `tflops`, with the model's memory.
trial_outcome ran_as_predicted(const tuning_context& ctx, const training_config& c, double tflops) {
  const auto p = predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec);
  trial_outcome r;
  r.config = c;
  r.tflops_per_gpu = tflops;
  r.mfu = tflops / 312;
  r.peak_memory_mib = p.peak_memory_mib;
  r.memory_limit_mib = 81920;
  r.gpu_util_pct = 95;
  return r;
}

TEST(expected_improvement, is_the_mean_excess_over_the_target) {
  EXPECT_NEAR(expected_improvement(100, 1, 100), 0.3989423, 1e-6); // sd * pdf(0)
  EXPECT_DOUBLE_EQ(expected_improvement(102, 0, 100), 2.0);
  EXPECT_NEAR(expected_improvement(90, 1, 100), 0.0, 1e-20);
  // The same expected shortfall, more uncertainty: more to gain.
  EXPECT_GT(expected_improvement(95, 10, 100), expected_improvement(99, 1, 100));
}

TEST(oom_risk, is_the_chance_the_peak_exceeds_the_device) {
  EXPECT_DOUBLE_EQ(oom_risk(81920, 81920, false), 0.5);
  EXPECT_NEAR(oom_risk(0.88 * 81920, 81920, false), 0.02275, 1e-4); // 2 sigma of 6%
  EXPECT_NEAR(oom_risk(0.96 * 81920, 81920, true), 0.02275, 1e-4);  // 2 sigma of 2%
  EXPECT_LT(oom_risk(0.7 * 81920, 81920, false), 1e-6);
}

TEST(throughput_estimator, is_the_measurement_where_a_configuration_ran) {
  const auto ctx = gpt3_7b_on_16_a100();
  const auto c = parse_config("tp=2,sp=true,mbs=2,recompute=selective", ctx.initial);
  const std::vector<trial_outcome> history{ran_as_predicted(ctx, c, 150)};
  throughput_estimator est(ctx, history);
  const auto e = est.estimate(c);
  EXPECT_TRUE(e.measured);
  EXPECT_DOUBLE_EQ(e.tflops, 150);
  EXPECT_DOUBLE_EQ(e.sigma, throughput_estimator::measured_sigma);
  EXPECT_EQ(e.nearest, 0);
}

TEST(throughput_estimator, carries_the_measured_ratio_and_knows_flags_better_than_splits) {
  const auto ctx = gpt3_7b_on_16_a100();
  const auto c = parse_config("tp=2,sp=true,mbs=2,recompute=selective", ctx.initial);
  const std::vector<trial_outcome> history{ran_as_predicted(ctx, c, 150)};
  throughput_estimator est(ctx, history);
  const double ratio = 150 / est.raw(c).tflops_per_gpu;
  // One run: the whole correction is the cluster-wide bias.
  const auto flag = parse_config("fused_ce=true", c);
  const auto e_flag = est.estimate(flag);
  EXPECT_FALSE(e_flag.measured);
  EXPECT_NEAR(e_flag.tflops, est.raw(flag).tflops_per_gpu * ratio, 1e-9);
  EXPECT_NEAR(e_flag.sigma, std::hypot(0.005, 0.01), 1e-12);
  EXPECT_EQ(e_flag.distance, 1);
  // A new split adds the model's error on one split (by distance) to the
  // error trend's uncertainty: with one run, the mean's 6% plus each
  // doubling away times the slopes' prior, which is next to nothing until
  // three splits are measured (one run is the bias alone).
  const double prior = throughput_estimator::no_slope_sigma;
  const auto split = parse_config("tp=4", c); // config_distance 3, one doubling
  EXPECT_NEAR(est.estimate(split).sigma,
              std::hypot(0.005, std::hypot(0.06 * 3 / 4, std::hypot(0.06, prior))), 1e-12);
  // TP two doublings, PP one, micro batch one: 6 squared doublings.
  const auto far = parse_config("tp=8,pp=2,mbs=1,recompute=full", c);
  EXPECT_NEAR(est.estimate(far).sigma,
              std::hypot(0.005, std::hypot(0.06, std::sqrt(0.06 * 0.06 + 6 * prior * prior))),
              1e-12);
  const std::vector<trial_outcome> none;
  throughput_estimator blind(ctx, none);
  EXPECT_NEAR(blind.estimate(c).tflops, blind.raw(c).tflops_per_gpu, 1e-9);
  EXPECT_NEAR(blind.estimate(c).sigma, std::hypot(0.005, 0.06), 1e-12);
}

TEST(throughput_estimator, a_near_neighbour_sets_most_of_the_local_correction) {
  const auto ctx = gpt3_7b_on_16_a100();
  const auto a = parse_config("tp=2,sp=true,mbs=2,recompute=selective", ctx.initial);
  const auto b = parse_config("tp=8,pp=2,mbs=1,recompute=full", ctx.initial);
  const std::vector<trial_outcome> none;
  throughput_estimator probe(ctx, none);
  // a ran 10% under its prediction, b 10% over.
  const std::vector<trial_outcome> history{ran_as_predicted(ctx, a, 0.9 * probe.raw(a).tflops_per_gpu),
                                           ran_as_predicted(ctx, b, 1.1 * probe.raw(b).tflops_per_gpu)};
  throughput_estimator est(ctx, history);
  const auto toggle = parse_config("fused_ce=true", a);
  const double ratio = est.estimate(toggle).tflops / est.raw(toggle).tflops_per_gpu;
  EXPECT_LT(ratio, 0.93); // mostly a's correction, not the mean of both
  EXPECT_GT(ratio, 0.9);
}

/// The configuration the model likes best in the search space.
training_config model_best(const tuning_context& ctx) {
  training_config best;
  double best_tflops = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> dims(ctx.search.begin(),
                                                                     ctx.search.end());
  std::function<void(size_t, training_config)> walk = [&](size_t i, training_config c) {
    if (i == dims.size()) {
      if (!check_megatron_rules(ctx.model, c, ctx.world_size).empty())
        return;
      const auto p = predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec);
      if (p.fits && p.tflops_per_gpu > best_tflops) {
        best_tflops = p.tflops_per_gpu;
        best = c;
      }
      return;
    }
    for (const auto& v : dims[i].second) {
      set_value(c, dims[i].first, v);
      walk(i + 1, c);
    }
  };
  walk(0, ctx.initial);
  return best;
}

TEST(reasoner_ranking, tries_another_split_before_toggling_flags_within_noise) {
  const auto ctx = gpt3_7b_on_16_a100();
  const auto best = model_best(ctx);
  const std::vector<trial_outcome> none;
  throughput_estimator probe(ctx, none);
  // The model's favourite ran exactly as predicted: every flag toggle of it
  // is now known to a percent and none is expected to gain more than that.
  const std::vector<trial_outcome> history{ran_as_predicted(ctx, best, probe.raw(best).tflops_per_gpu)};
  const auto a = analyze(ctx, history);
  ASSERT_TRUE(a.selected) << a.reasoning;
  const auto& s = a.selected->config;
  EXPECT_TRUE(s.tp != best.tp || s.pp != best.pp || s.mbs != best.mbs
              || s.recompute != best.recompute || s.sp != best.sp)
    << a.selected->text << "\n" << a.reasoning;
  EXPECT_GE(a.selected->uncertainty, 0.02);
  EXPECT_NE(a.reasoning.find("Ranking: "), std::string::npos);
  EXPECT_NE(a.reasoning.find("+-"), std::string::npos);
}

TEST(candidate_scorer, values_expected_throughput_times_the_chance_of_fitting_before_any_run) {
  const auto ctx = gpt3_7b_on_16_a100();
  const std::vector<trial_outcome> none; // both keep a reference to the history
  throughput_estimator est(ctx, none);
  const memory_screen memory(none, [&est](const training_config& c) -> const perf_prediction& {
    return est.raw(c);
  });
  const candidate_scorer rank(est, memory, 0);
  // Without an incumbent the value is the expected throughput times the
  // chance of fitting.
  for (const char* text : {"tp=1,mbs=1,recompute=full", "tp=1,mbs=4,recompute=none,dist_opt=true",
                           "tp=2,sp=true,mbs=2,recompute=selective"}) {
    const auto c = parse_config(text, ctx.initial);
    const auto& p = est.raw(c);
    const auto s = rank.score(c);
    EXPECT_NEAR(s.oom_risk, oom_risk(p.peak_memory_mib, 81920, false), 1e-12) << text;
    EXPECT_NEAR(s.value, p.tflops_per_gpu * (1 - s.oom_risk), 1e-9) << text;
  }
}

} // namespace
} // namespace paratune
