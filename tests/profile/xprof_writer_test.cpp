// Write Xprof tool outputs from a typed profile, read them back.
#include "adapters/profile/xprof_reader.hpp"
#include "sim/tpu/xprof_writer.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace paratune {
namespace {

namespace fs = std::filesystem;

class XprofWriter : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::make_temp_dir("xprof-writer"); }
  void TearDown() override { fs::remove_all(dir_); }

  xprof_profile round_trip(const xprof_profile& p) {
    auto paths = write_xprof_dir(p, dir_, "sim");
    EXPECT_EQ(paths.size(), 3u);
    return read_xprof_dir(dir_);
  }

  std::string dir_;
};

// Xprof prints percentages and step times with one decimal.
constexpr double printed = 0.05 + 1e-9;

TEST_F(XprofWriter, GoldenProfileSurvivesTheRoundTrip) {
  auto p1 = read_xprof_dir(fs::path(test::data_dir()) / "xprof");
  auto p2 = round_trip(p1);
  EXPECT_FALSE(p2.partial);
  EXPECT_EQ(p2.tools, (std::vector<std::string>{"overview_page", "roofline_model", "op_profile"}));
  const auto &a = p1.kpis, &b = p2.kpis;
  EXPECT_NEAR(*b.step_time_avg_ms, *a.step_time_avg_ms, printed);
  EXPECT_NEAR(*b.step_time_stddev_ms, *a.step_time_stddev_ms, printed);
  EXPECT_NEAR(*b.mxu_utilization_percent, 15.7, printed);
  // The corrected duty cycle is written, so it reads back as reported.
  EXPECT_NEAR(*b.reported_device_duty_cycle_percent, 99.7, printed);
  EXPECT_NEAR(*b.device_duty_cycle_percent, *a.device_duty_cycle_percent, printed);
  EXPECT_NEAR(*b.flops_utilization_percent, *a.flops_utilization_percent, printed);
  EXPECT_NEAR(*b.hbm_bw_utilization_percent, *a.hbm_bw_utilization_percent, printed);
  EXPECT_NEAR(*b.compute_time_avg_ms, 96.62, 1e-9);
  EXPECT_EQ(b.device_type, "TPU v5");
  EXPECT_EQ(*b.device_core_count, 8);
  EXPECT_EQ(*b.host_count, 1);
  ASSERT_EQ(p2.steps.size(), p1.steps.size());
  EXPECT_NEAR(*p2.steps[0].compute_ms, *p1.steps[0].compute_ms, 1e-9);

  EXPECT_DOUBLE_EQ(*p2.peaks.peak_flop_rate_gflops, 233400.0);
  EXPECT_DOUBLE_EQ(*p2.peaks.peak_hbm_bw_gibps, 1287.45);
  EXPECT_NEAR(*p2.peaks.hbm_ridge_point, 168.838, 1e-3);

  ASSERT_EQ(p2.top_ops.size(), p1.top_ops.size());
  for (std::size_t i = 0; i < p1.top_ops.size(); ++i) {
    const auto &x = p1.top_ops[i], &y = p2.top_ops[i];
    EXPECT_EQ(y.name, x.name);
    EXPECT_EQ(y.category, x.category);
    EXPECT_NEAR(y.time_share, x.time_share, 1e-12);
    EXPECT_NEAR(y.raw_time_ps, x.raw_time_ps, 1e-3 * x.raw_time_ps);
    EXPECT_EQ(y.occurrences, x.occurrences);
    EXPECT_NEAR(*y.flops_utilization, *x.flops_utilization, 1e-12);
    EXPECT_NEAR(*y.hbm_bw_utilization, *x.hbm_bw_utilization, 1e-12);
    // bound_by survives where the written roofline table (its top rows) has
    // the op; elsewhere it is re-derived from the op's utilisations.
    bool has_row = false;
    for (const auto& r : p1.roofline_ops)
      has_row |= x.name == r.name || x.name == r.name + " and its duplicate(s)";
    if (has_row)
      EXPECT_EQ(y.bound_by, x.bound_by) << x.name;
    else
      EXPECT_FALSE(y.bound_by.empty()) << x.name;
  }
  ASSERT_EQ(p2.roofline_ops.size(), p1.roofline_ops.size());
  EXPECT_EQ(p2.roofline_ops[0].name, "dynamic-update-slice.33");
  EXPECT_NEAR(p2.roofline_ops[0].time_share, p1.roofline_ops[0].time_share, 1e-15);
  EXPECT_EQ(p2.roofline_ops[0].bound_by, "HBM");
  EXPECT_NEAR(*p2.roofline_ops[0].hbm_bw_utilization, *p1.roofline_ops[0].hbm_bw_utilization,
              1e-12);
}

TEST_F(XprofWriter, SimulatedProfileFromScratch) {
  // What a simulated TPU cluster would fill in.
  xprof_profile p;
  p.kpis.step_time_avg_ms = 812.4;
  p.kpis.step_time_stddev_ms = 3.2;
  p.kpis.device_duty_cycle_percent = 97.5;
  p.kpis.mxu_utilization_percent = 48.3;
  p.kpis.flops_utilization_percent = 52.0;
  p.kpis.hbm_bw_utilization_percent = 31.0;
  p.kpis.device_type = "TPU v5p";
  p.kpis.device_core_count = 256;
  p.kpis.host_count = 64;
  p.peaks.peak_flop_rate_gflops = 459000;
  p.peaks.peak_hbm_bw_gibps = 2582.0;
  auto op = [](std::string name, std::string cat, double share, double flops, double hbm,
               std::string bound) {
    xprof_op o;
    o.name = std::move(name);
    o.category = std::move(cat);
    o.time_share = share;
    o.raw_time_ps = share * 812.4e9;
    o.occurrences = 64;
    o.flops_utilization = flops;
    o.hbm_bw_utilization = hbm;
    o.bound_by = std::move(bound);
    return o;
  };
  p.top_ops = {op("fusion.12", "convolution fusion", 0.41, 0.81, 0.20, "Compute"),
               op("all-reduce.3", "all-reduce", 0.22, 0.0, 0.64, "HBM"),
               op("fusion.40", "loop fusion", 0.09, 0.02, 0.71, "HBM")};

  auto q = round_trip(p);
  EXPECT_NEAR(*q.kpis.step_time_avg_ms, 812.4, printed);
  EXPECT_NEAR(*q.kpis.device_duty_cycle_percent, 97.5, printed);
  EXPECT_NEAR(*q.kpis.mxu_utilization_percent, 48.3, printed);
  EXPECT_NEAR(*q.kpis.flops_utilization_percent, 52.0, printed);
  EXPECT_EQ(q.kpis.device_type, "TPU v5p");
  EXPECT_EQ(*q.kpis.device_core_count, 256);
  // The all-reduce category is recognised as collective time.
  EXPECT_NEAR(*q.kpis.collectives_time_percent, 22.0, 1e-9);
  EXPECT_NEAR(*q.peaks.hbm_ridge_point, 459000e9 / (2582.0 * 1073741824.0), 1e-3);
  ASSERT_EQ(q.top_ops.size(), 3u);
  EXPECT_EQ(q.top_ops[0].name, "fusion.12");
  EXPECT_NEAR(q.top_ops[0].time_share, 0.41, 1e-12);
  EXPECT_EQ(q.top_ops[0].bound_by, "Compute");
  EXPECT_EQ(q.top_ops[1].bound_by, "HBM");
  EXPECT_NEAR(*q.top_ops[2].hbm_bw_utilization, 0.71, 1e-12);
  // roofline_model was written from top_ops: rates follow from the peaks.
  ASSERT_EQ(q.roofline_ops.size(), 3u);
  EXPECT_NEAR(*q.roofline_ops[0].flop_rate_gflops, 0.81 * 459000, 1e-6);
  EXPECT_NEAR(*q.roofline_ops[1].hbm_bw_utilization, 0.64, 1e-12);
}

TEST_F(XprofWriter, EmptyProfileStillReadable) {
  auto q = round_trip(xprof_profile{});
  EXPECT_FALSE(q.kpis.step_time_avg_ms);
  EXPECT_TRUE(q.top_ops.empty());
  EXPECT_FALSE(q.partial);
}

} // namespace
} // namespace paratune
