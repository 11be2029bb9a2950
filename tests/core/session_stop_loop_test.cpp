#include <cmath>

#include "core/perf/perf_model.hpp"
#include "core/tuning/prediction_calibration.hpp"
#include "core/tuning/reasoner.hpp"
#include "tests/core/gpt3_on_16.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

/// GPT3-7B on 16 A100s, fp16, a space of 3 x 3 x 3 x 2 x 2.
tuning_context small_space() {
  return test::gpt3_7b_on_16("tp=4,pp=2,mbs=1,gbs=1024,seq=4096,recompute=full",
                             {{"tp", {"1", "2", "4"}}, {"pp", {"1", "2", "4"}},
                              {"mbs", {"1", "2", "4"}}, {"recompute", {"selective", "full"}},
                              {"overlap_grad", {"false", "true"}}});
}

/// A cluster where the model is right: each trial measures its prediction
/// (an OOM where the model says it does not fit).
trial_outcome measure(const tuning_context& ctx, const training_config& c) {
  const auto p = predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec);
  trial_outcome o;
  o.config = c;
  o.memory_limit_mib = p.memory_limit_mib;
  if (p.peak_memory_mib > p.memory_limit_mib) {
    o.status = trial_status::failed;
    o.failure = failure_kind::oom;
    return o;
  }
  o.tflops_per_gpu = p.tflops_per_gpu;
  o.peak_memory_mib = p.peak_memory_mib;
  o.gpu_util_pct = 90;
  return o;
}

struct session_run {
  std::vector<trial_outcome> history;
  std::string stop_reason;  ///< empty when it ran to its budget
};

session_run tune(const tuning_context& ctx, int budget) {
  session_run r;
  while (int(r.history.size()) < budget) {
    const auto a = analyze(ctx, r.history);
    if (a.stop.stop) {
      r.stop_reason = a.stop.reason;
      break;
    }
    if (!a.selected)
      break;
    
    r.history.push_back(measure(ctx, a.selected->config));
  }
  return r;
}

double best_of(const std::vector<trial_outcome>& h) {
  double best = 0;
  for (const auto& o : h)
    best = std::max(best, o.measured() ? o.tflops_per_gpu : 0.0);
  return best;
}

TEST(session_stop_loop, stop_budget_runs_every_trial) {
  auto ctx = small_space();
  ctx.stop = session_stop_policy::budget();
  const auto r = tune(ctx, 8);
  EXPECT_EQ(r.history.size(), 8u);
  EXPECT_EQ(r.stop_reason, "");
}

TEST(session_stop_loop, the_rule_stops_before_the_budget_with_the_budgets_best) {
  auto ctx = small_space();
  ctx.stop = session_stop_policy::budget();
  const auto full = tune(ctx, 8);
  ctx.stop = {session_stop_mode::converged, 0.01, 0.9};
  const auto stopped = tune(ctx, 8);
  EXPECT_LT(stopped.history.size(), 8u);
  EXPECT_EQ(stopped.stop_reason.rfind("converged: ", 0), 0u) << stopped.stop_reason;
  EXPECT_DOUBLE_EQ(best_of(stopped.history), best_of(full.history));
  // Its trials are the budget run's first ones: the rule only ends it.
  for (size_t i = 0; i < stopped.history.size(); ++i)
    EXPECT_EQ(stopped.history[i].config, full.history[i].config) << i;
}

TEST(session_stop_loop, a_margin_nothing_can_reach_stops_once_the_model_was_checked_twice) {
  auto ctx = small_space();
  ctx.stop = {session_stop_mode::converged, 1.0, 0.9};  // only a doubling would do
  const auto r = tune(ctx, 8);
  // Two predictions held against a run take three measured configurations.
  EXPECT_EQ(r.history.size(), 3u);
  EXPECT_EQ(r.stop_reason.rfind("converged: ", 0), 0u) << r.stop_reason;
}

TEST(prediction_calibration, a_model_right_on_every_run_is_trusted_more) {
  const auto ctx = small_space();
  std::vector<trial_outcome> h;
  for (const char* c : {"tp=4,pp=2,mbs=1", "tp=2,pp=2,mbs=1", "tp=2,pp=1,mbs=2"})
    h.push_back(measure(ctx, parse_config(c, ctx.initial)));
  const auto cal = calibrate_predictions(ctx, h);
  ASSERT_EQ(cal.checks.size(), 2u);
  EXPECT_EQ(cal.checks[0].trial, 2);
  EXPECT_NEAR(cal.checks[0].z, 0, 1e-9);
  // Two checks at z = 0: the scale as low as it goes, on two degrees of
  // freedom (the stop's tails stay heavy).
  EXPECT_DOUBLE_EQ(cal.sigma_scale, prediction_calibration::min_scale);
  EXPECT_DOUBLE_EQ(cal.degrees_of_freedom, 2);
}

TEST(prediction_calibration, a_miss_beyond_the_models_sigma_widens_every_sigma) {
  const auto ctx = small_space();
  std::vector<trial_outcome> h{measure(ctx, parse_config("tp=4,pp=2,mbs=1", ctx.initial)),
                               measure(ctx, parse_config("tp=2,pp=2,mbs=4", ctx.initial))};
  h[1].tflops_per_gpu *= 1.3;  // 30% faster than the model said
  const auto cal = calibrate_predictions(ctx, h);
  ASSERT_EQ(cal.checks.size(), 1u);
  const auto& c = cal.checks[0];
  EXPECT_NEAR(c.z, std::log(1.3) / c.sigma, 1e-9);
  EXPECT_GT(c.z, 3);
  EXPECT_NEAR(cal.sigma_scale, c.z, 1e-12);
  EXPECT_DOUBLE_EQ(cal.degrees_of_freedom, 1);
}

} // namespace
} // namespace paratune
