#include <gtest/gtest.h>

#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "report/baseline_value.hpp"
#include "tests/report/sample_summary.hpp"

namespace paratune {
namespace {

// 1000 global batches of 512 x 8192 tokens on 8 GPUs. The best trial takes
// 36 s per batch at 200 TFLOP/s/GPU: 36,000 s, 10 hours, 80 GPU-hours.
session_summary priced_session() {
  session_summary s;
  s.job.tokens = 512.0 * 8192 * 1000;
  s.job.world_size = 8;
  auto first = test::sample_row(1, trial_status::succeeded, 0.3, 100);
  first.iteration_ms = 72000;
  first.config["tp"] = "4";
  auto best = test::sample_row(2, trial_status::succeeded, 0.6, 200);
  best.iteration_ms = 36000;
  s.trials = {first, best};
  s.first_success = first;
  s.best = best;
  return s;
}

wire::baseline_wire baseline(int tp, int gbs, double tflops) {
  training_config c = wire::from_wire(test::sample_row(0, trial_status::succeeded, 0, 0).config);
  c.tp = tp;
  c.gbs = gbs;
  return {true, wire::to_wire(c), tflops};
}

TEST(Baseline, NoneWithoutABaselineInTheJob) {
  const auto s = priced_session();
  EXPECT_FALSE(baseline_of(s));
  EXPECT_TRUE(baseline_json(s).is_null());
  EXPECT_EQ(baseline_sentence(s), "");
}

TEST(Baseline, TheJobFilesThroughputScaledFromTheBestTrial) {
  auto s = priced_session();
  s.job.baseline = baseline(2, 512, 100);  // half the best's pace: twice its GPU-hours
  const auto v = baseline_of(s);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->source, baseline_source::job_file);
  EXPECT_DOUBLE_EQ(v->cost.iterations, 1000);
  EXPECT_DOUBLE_EQ(v->cost.gpu_hours, 160);
  EXPECT_DOUBLE_EQ(v->cost.days, 20.0 / 24);
  EXPECT_DOUBLE_EQ(v->gpu_hours_saved, 80);
  const auto j = baseline_json(s);
  EXPECT_EQ(j["source"], "job_file");
  EXPECT_DOUBLE_EQ(j["gpu_hours"].get<double>(), 160);
  EXPECT_FALSE(j.contains("trial"));
  EXPECT_EQ(baseline_sentence(s),
            "baseline: 0.8 days, 160 GPU-hours at the 100.0 TFLOP/s/GPU the job file gives (no "
            "trial of this session ran it); the best configuration saves 80 GPU-hours against it");
}

TEST(Baseline, ALargerBatchSeesTheBudgetInFewerSlowerIterations) {
  auto s = priced_session();
  s.job.baseline = baseline(2, 1024, 100);
  const auto v = baseline_of(s);
  ASSERT_TRUE(v);
  EXPECT_DOUBLE_EQ(v->cost.iterations, 500);
  EXPECT_DOUBLE_EQ(v->cost.gpu_hours, 160);  // the same tokens at the same pace
}

TEST(Baseline, ATrialOfTheSessionThatRanItWinsOverTheJobFile) {
  auto s = priced_session();
  s.trials[0].iteration_ms = 45000;  // trial 1 (tp 4) ran the baseline: 12.5 h, 100 GPU-hours
  s.job.baseline = baseline(4, 512, 150);
  const auto v = baseline_of(s);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->source, baseline_source::session_trial);
  EXPECT_EQ(v->trial, 1);
  EXPECT_DOUBLE_EQ(v->tflops_per_gpu, 100);
  EXPECT_DOUBLE_EQ(v->cost.gpu_hours, 100);
  EXPECT_DOUBLE_EQ(v->gpu_hours_saved, 20);
  EXPECT_EQ(baseline_json(s)["trial"], 1);
}

TEST(Baseline, NamedButNotMeasuredIsNotPriced) {
  auto s = priced_session();
  s.job.baseline = baseline(1, 512, 0);
  const auto v = baseline_of(s);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->source, baseline_source::not_measured);
  EXPECT_DOUBLE_EQ(v->cost.gpu_hours, 0);
  const auto j = baseline_json(s);
  EXPECT_EQ(j["source"], "not_measured");
  EXPECT_FALSE(j.contains("gpu_hours"));
  EXPECT_NE(baseline_sentence(s).find("not measured"), std::string::npos);
}

TEST(Baseline, FullRunJsonCarriesIt) {
  auto s = priced_session();
  s.job.baseline = baseline(2, 512, 100);
  const auto j = full_run_json(s);
  EXPECT_DOUBLE_EQ(j["best"]["gpu_hours"].get<double>(), 80);
  EXPECT_DOUBLE_EQ(j["baseline"]["gpu_hours_saved"].get<double>(), 80);
  s.job.baseline = {};
  EXPECT_FALSE(full_run_json(s).contains("baseline"));
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

// A session_opened written before `baseline` existed: the map lacks the key.
TEST(Baseline, ARecordWithoutTheFieldReadsAsNoBaseline) {
  msgpack::sbuffer body;
  msgpack::packer<msgpack::sbuffer> pk(body);
  pk.pack_map(2);
  pk.pack(std::string("job_name"));
  pk.pack(std::string("old"));
  pk.pack(std::string("tokens"));
  pk.pack(15e12);
  wire::envelope e;
  e.type = wire::type_name<wire::session_opened>();
  e.body.assign(body.data(), body.size());
  const auto s = wire::body_of<wire::session_opened>(e);
  EXPECT_EQ(s.job_name, "old");
  EXPECT_DOUBLE_EQ(s.tokens, 15e12);
  EXPECT_FALSE(s.baseline.given);
  EXPECT_TRUE(s.baseline.config.empty());
}

} // namespace
} // namespace paratune
