// How the reasoner ranks candidates outside the directive: the model
// corrected by measurements (throughput_estimator), the expected gain over
// the incumbent, the risk of running out of memory (candidate_scorer).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>

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
  // Without an incumbent or a measured neighbour the value is the expected
  // throughput where the model's verdict leaves a chance (fits or tight),
  // and nothing where even its measured error band cannot make it fit.
  for (const auto& [text, verdict] :
       {std::pair{"tp=1,mbs=1,recompute=full", memory_verdict::does_not_fit},
        std::pair{"tp=1,mbs=4,recompute=none,dist_opt=true", memory_verdict::does_not_fit},
        std::pair{"tp=2,sp=true,mbs=2,recompute=selective", memory_verdict::tight},
        std::pair{"tp=4,sp=true,mbs=1,recompute=selective", memory_verdict::fits}}) {
    const auto c = parse_config(text, ctx.initial);
    const auto& p = est.raw(c);
    const auto s = rank.score(c);
    EXPECT_EQ(p.memory, verdict) << text << ": " << p.peak_memory_mib << " MiB";
    EXPECT_NEAR(s.oom_risk, oom_risk(p.peak_memory_mib, 81920, false), 1e-12) << text;
    EXPECT_NEAR(s.value, verdict == memory_verdict::does_not_fit ? 0.0 : p.tflops_per_gpu, 1e-9)
      << text;
  }
}

TEST(reasoner_ranking, a_tight_configuration_the_model_ranks_first_is_tried_first) {
  // Before any run has measured memory (start: predicted_best), the model's
  // favourite is tight, within its measured error of the 80 GiB: it is
  // proposed ahead of the fastest configuration the screen is sure of.
  auto ctx = gpt3_7b_on_16_a100();
  ctx.start = start_policy::predicted_best;
  const auto best = model_best(ctx);
  const auto p_best = predict(ctx.model, ctx.cluster, ctx.world_size, best, ctx.prec);
  ASSERT_EQ(p_best.memory, memory_verdict::tight) << canonical_key(best);
  const auto a = analyze(ctx, {});
  ASSERT_TRUE(a.selected) << a.reasoning;
  const auto chosen = predict(ctx.model, ctx.cluster, ctx.world_size, a.selected->config, ctx.prec);
  EXPECT_EQ(chosen.memory, memory_verdict::tight) << a.selected->text << "\n" << a.reasoning;
  EXPECT_NEAR(chosen.tflops_per_gpu, p_best.tflops_per_gpu, 0.01 * p_best.tflops_per_gpu)
    << a.selected->text;
}

TEST(memory_screen, the_model_alone_refuses_what_is_over_the_device_or_beyond_its_error_band) {
  const auto ctx = gpt3_7b_on_16_a100();
  std::vector<trial_outcome> none;
  auto predict_of = [&ctx](const training_config& c) {
    return predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec);
  };
  std::map<std::string, perf_prediction> cache;
  const memory_screen screen(none, [&](const training_config& c) -> const perf_prediction& {
    return cache[canonical_key(c)] = predict_of(c);
  });
  // Tight at 76,766 MiB, under the 81,920 of the device: only a run can tell.
  const auto tight = parse_config("tp=2,sp=false,mbs=1,recompute=none", ctx.initial);
  const auto p_tight = predict_of(tight);
  ASSERT_EQ(p_tight.memory, memory_verdict::tight) << p_tight.peak_memory_mib;
  ASSERT_LE(p_tight.peak_memory_mib, 81920);
  EXPECT_EQ(screen.check(tight, p_tight), std::nullopt);
  EXPECT_EQ(screen_before_any_run(tight, p_tight), std::nullopt);
  // Tight by the band too, but predicted at 83,771 MiB, over the device: a
  // run more likely than not to run out (issue 45: plan called such a
  // layout tight while tune would not run it).
  const auto over = parse_config("tp=2,sp=true,mbs=2,recompute=selective", ctx.initial);
  const auto p_over = predict_of(over);
  ASSERT_EQ(p_over.memory, memory_verdict::tight);
  EXPECT_EQ(screen.check(over, p_over),
            fmt::format("memory screen: predicted peak {:.0f} MiB is over the 81920 MiB of the "
                        "device (65% risk of running out of memory)",
                        p_over.peak_memory_mib));
  EXPECT_NEAR(p_over.peak_memory_mib, 83771, 1);
  EXPECT_EQ(screen_before_any_run(over, p_over), screen.check(over, p_over));
  const auto big = parse_config("tp=1,mbs=4,recompute=none,dist_opt=true", ctx.initial);
  const auto p_big = predict_of(big);
  ASSERT_EQ(p_big.memory, memory_verdict::does_not_fit);
  EXPECT_EQ(screen.check(big, p_big),
            "memory screen: " + describe_memory(p_big.peak_memory_mib, 81920, p_big.memory_band));

  // A measured neighbour that ran below its prediction corrects the tight
  // one down: the screen then trusts the measurement, not the band.
  std::vector<trial_outcome> ran{ran_as_predicted(ctx, tight, 150)};
  ran[0].peak_memory_mib = 0.95 * p_tight.peak_memory_mib;
  const memory_screen measured(ran, [&](const training_config& c) -> const perf_prediction& {
    return cache[canonical_key(c)] = predict_of(c);
  });
  const auto [peak, backed] = measured.corrected_peak(tight, p_tight);
  EXPECT_TRUE(backed);
  EXPECT_NEAR(peak, 0.95 * p_tight.peak_memory_mib, 1e-6);
  EXPECT_EQ(measured.check(tight, p_tight), std::nullopt);
}

} // namespace
} // namespace paratune
