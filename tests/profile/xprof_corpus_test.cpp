// Values read from every real Xprof file in data/xprof.
#include "adapters/profile/xprof_reader.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace paratune {
namespace {

namespace fs = std::filesystem;

fs::path corpus() { return fs::path(test::data_dir()) / "xprof"; }

xprof_profile read_one(const std::string& file, const std::string& tool) {
  return read_xprof_files({{"", tool, corpus() / file}});
}

TEST(XprofCorpus, FindsToolFilesByName) {
  auto files = find_xprof_tool_files(corpus());
  // 6 golden + 2 legacy + 1 derived; README.md and the .xplane.pb are not tool files.
  ASSERT_EQ(files.size(), 9u);
  EXPECT_EQ(files[0].host, "DERIVED_pruned");
  EXPECT_EQ(files[0].tool, "op_profile");
  auto gz = std::find_if(files.begin(), files.end(), [](const auto& f) {
    return f.host == "golden_tpu-training" && f.tool == "op_profile";
  });
  ASSERT_NE(gz, files.end());
  EXPECT_EQ(gz->path.filename(), "golden_tpu-training.op_profile.json.gz");
}

TEST(XprofCorpus, GoldenOverviewKpis) {
  auto p = read_one("golden_tpu-training.overview_page.json", "overview_page");
  const auto& k = p.kpis;
  EXPECT_DOUBLE_EQ(*k.step_time_avg_ms, 96.3);
  EXPECT_DOUBLE_EQ(*k.step_time_stddev_ms, 53.8);
  EXPECT_DOUBLE_EQ(*k.step_time_max_ms, 120.9);
  EXPECT_DOUBLE_EQ(*k.mxu_utilization_percent, 15.7);
  // The real page prints 0.0% duty cycle; alone it cannot be corrected by
  // op_profile, but the step table's compute/idle split can.
  EXPECT_DOUBLE_EQ(*k.reported_device_duty_cycle_percent, 0.0);
  EXPECT_NEAR(*k.device_duty_cycle_percent, 100.0 * 96.62 / (96.62 + 0.24), 1e-9);
  EXPECT_DOUBLE_EQ(*k.infeed_percent, 0.0);
  EXPECT_DOUBLE_EQ(*k.compute_time_avg_ms, 96.62);
  EXPECT_DOUBLE_EQ(*k.idle_time_avg_ms, 0.24);
  EXPECT_EQ(k.device_type, "TPU v5");
  EXPECT_EQ(*k.device_core_count, 8);
  EXPECT_EQ(*k.host_count, 1);
  EXPECT_FALSE(k.collectives_time_avg_ms);  // GPU-only field
  ASSERT_EQ(p.steps.size(), 5u);
  EXPECT_EQ(p.steps[0].step, "0");
  EXPECT_NEAR(*p.steps[0].step_ms, 120.041345 + 0.840949921999993, 1e-9);
  // Without op_profile/roofline, overview's own top-ops table is used.
  ASSERT_FALSE(p.top_ops.empty());
  EXPECT_EQ(p.top_ops[0].category, "dynamic_update_slice");
  EXPECT_NEAR(p.top_ops[0].time_share, 0.154143016562757, 1e-12);
  EXPECT_EQ(p.top_ops[0].source, "overview_page");
}

TEST(XprofCorpus, GoldenOpProfileTopOps) {
  auto p = read_one("golden_tpu-training.op_profile.json.gz", "op_profile");
  ASSERT_FALSE(p.top_ops.empty());
  const auto& top = p.top_ops[0];
  EXPECT_EQ(top.name, "dynamic-update-slice.31 and its duplicate(s)");
  EXPECT_EQ(top.category, "dynamic-update-slice");
  EXPECT_NEAR(top.time_share, 353023935394.0 / 3907589469062.0, 1e-12);
  EXPECT_DOUBLE_EQ(top.raw_time_ps, 353023935394.0);
  EXPECT_EQ(top.occurrences, 1024u);
  EXPECT_DOUBLE_EQ(*top.flops_utilization, 0.0);
  EXPECT_NEAR(*top.hbm_bw_utilization, 0.030803043589621163, 1e-15);
  EXPECT_EQ(top.bound_by, "HBM");  // derived: bandwidth is its only non-zero utilisation
  EXPECT_EQ(p.top_ops[1].name, "async-collective-start.3 and its duplicate(s)");
  EXPECT_EQ(p.top_ops.size(), 20u);  // default top_n
  EXPECT_EQ(p.kpis.device_type, "TPU");
  // KPI fallbacks from the root: flops 0.597, bandwidthUtils[0] 0.367, IDLE share.
  EXPECT_NEAR(*p.kpis.flops_utilization_percent, 59.69161535731864, 1e-9);
  EXPECT_NEAR(*p.kpis.hbm_bw_utilization_percent, 36.67535271036472, 1e-9);
  EXPECT_NEAR(*p.kpis.device_duty_cycle_percent, 99.74960310811902, 1e-9);
  EXPECT_NEAR(*p.kpis.collectives_time_percent, 26.535900005609, 1e-6);
}

TEST(XprofCorpus, DerivedPrunedOpProfile) {
  auto p = read_one("DERIVED_pruned.op_profile.json", "op_profile");
  ASSERT_EQ(p.top_ops.size(), 20u);
  EXPECT_EQ(p.top_ops[0].name, "dynamic-update-slice.31 and its duplicate(s)");
  EXPECT_NEAR(p.top_ops[0].time_share, 0.09034314842668001, 1e-12);
  // Pruning hides part of "custom fusion", so fewer collectives are visible.
  EXPECT_NEAR(*p.kpis.collectives_time_percent, 11.491497182885752, 1e-6);
  EXPECT_NEAR(*p.kpis.device_duty_cycle_percent, 99.74960310811902, 1e-9);
}

TEST(XprofCorpus, GoldenRooflineModel) {
  auto p = read_one("golden_tpu-training.roofline_model.json", "roofline_model");
  EXPECT_DOUBLE_EQ(*p.peaks.peak_flop_rate_gflops, 233400.0);
  EXPECT_DOUBLE_EQ(*p.peaks.peak_hbm_bw_gibps, 1287.45);
  EXPECT_DOUBLE_EQ(*p.peaks.hbm_ridge_point, 168.838);
  EXPECT_EQ(p.peaks.device_type, "TPU v5");
  ASSERT_EQ(p.roofline_ops.size(), 20u);
  const auto& top = p.roofline_ops[0];
  EXPECT_EQ(top.name, "dynamic-update-slice.33");
  EXPECT_EQ(top.category, "dynamic-update-slice");
  EXPECT_NEAR(top.time_share, 0.05119342084520957, 1e-15);  // a fraction in this tool
  EXPECT_EQ(top.bound_by, "HBM");
  EXPECT_EQ(top.occurrences, 512u);
  EXPECT_NEAR(*top.hbm_bw_utilization, 34.99250851112546 / 1287.45, 1e-12);
  EXPECT_NEAR(*top.roofline_efficiency, 0.027179702909725004, 1e-15);
  // top_ops falls back to roofline when there is no op_profile.
  EXPECT_EQ(p.top_ops[0].name, "dynamic-update-slice.33");
  EXPECT_NEAR(*p.kpis.flops_utilization_percent, 59.69161535731864, 1e-9);
}

TEST(XprofCorpus, GoldenHloStats) {
  xprof_read_options opt;
  opt.top_n = 1000;
  auto p = read_xprof_files({{"", "hlo_stats", corpus() / "golden_tpu-training.hlo_stats.json"}},
                            opt);
  ASSERT_EQ(p.hlo_ops.size(), 357u);
  const auto& top = p.hlo_ops[0];
  EXPECT_EQ(top.name, "dynamic-update-slice.33");
  EXPECT_NEAR(top.time_share, 0.05119342084520957, 1e-12);  // 0-100 in the file
  EXPECT_EQ(top.bound_by, "HBM");
  EXPECT_NEAR(*top.hbm_bw_gibps, 34.99250851112546, 1e-12);
  EXPECT_DOUBLE_EQ(top.raw_time_ps, 200042.87218 * 1e6);
}

TEST(XprofCorpus, GoldenFrameworkOpStats) {
  auto p = read_one("golden_tpu-training.framework_op_stats.json.gz", "framework_op_stats");
  ASSERT_FALSE(p.framework_ops.empty());
  EXPECT_EQ(p.framework_ops[0].category, "dynamic_update_slice");
  EXPECT_NEAR(p.framework_ops[0].time_share, 0.15375704724023226, 1e-15);
  EXPECT_EQ(p.framework_ops[0].bound_by, "HBM");
  EXPECT_EQ(p.framework_ops[0].occurrences, 512u);
}

TEST(XprofCorpus, GoldenInputPipeline) {
  auto p = read_one("golden_tpu-training.input_pipeline_analyzer.json", "input_pipeline_analyzer");
  EXPECT_DOUBLE_EQ(*p.kpis.step_time_avg_ms, 96.3);
  EXPECT_DOUBLE_EQ(*p.kpis.infeed_percent, 0.0);
  ASSERT_EQ(p.steps.size(), 5u);
  EXPECT_EQ(p.steps[4].step, "4");
  EXPECT_NEAR(*p.steps[4].compute_ms, 3.052250156, 1e-12);
}

TEST(XprofCorpus, LegacyOverviewPage) {
  auto p = read_one("legacy_demo.overview_page.json", "overview_page");
  const auto& k = p.kpis;
  EXPECT_DOUBLE_EQ(*k.step_time_avg_ms, 9.3);
  EXPECT_DOUBLE_EQ(*k.step_time_stddev_ms, 5.6);
  EXPECT_DOUBLE_EQ(*k.mxu_utilization_percent, 0.8);
  EXPECT_DOUBLE_EQ(*k.flops_utilization_percent, 1.3);
  EXPECT_DOUBLE_EQ(*k.hbm_bw_utilization_percent, 1.3);
  EXPECT_DOUBLE_EQ(*k.host_idle_percent, 88.0);
  EXPECT_FALSE(k.reported_device_duty_cycle_percent);  // older property set
  EXPECT_EQ(k.device_type, "TPU");
  EXPECT_EQ(*k.device_core_count, 16);  // "16 (Replica count = 1, ...)"
  EXPECT_NEAR(*k.infeed_percent, 100.0 * 4.9 / 9.3, 1e-9);
  ASSERT_EQ(p.steps.size(), 5u);
  EXPECT_EQ(p.steps[0].step, "3123");
  EXPECT_EQ(p.top_ops[0].name, "infeed");
  EXPECT_NEAR(p.top_ops[0].time_share, 0.8285904125908706, 1e-15);
}

TEST(XprofCorpus, LegacyOpProfile) {
  auto p = read_one("legacy_demo.op_profile.json", "op_profile");
  ASSERT_EQ(p.top_ops.size(), 3u);
  EXPECT_EQ(p.top_ops[0].name, "%fusion");
  EXPECT_DOUBLE_EQ(p.top_ops[0].time_share, 0.4);  // legacy metrics.time fraction
  EXPECT_DOUBLE_EQ(*p.top_ops[0].flops_utilization, 0.22);
  EXPECT_EQ(p.top_ops[0].category, "Good ops");
  EXPECT_EQ(p.top_ops[2].name, "%convolution");
  EXPECT_NEAR(*p.kpis.flops_utilization_percent, 40.0, 1e-9);
}

TEST(XprofCorpus, WholeDirectoryPicksGoldenHost) {
  auto p = read_xprof_dir(corpus());
  EXPECT_FALSE(p.partial);
  EXPECT_EQ(p.tools.size(), 6u);
  const auto& k = p.kpis;
  EXPECT_DOUBLE_EQ(*k.step_time_avg_ms, 96.3);
  EXPECT_DOUBLE_EQ(*k.mxu_utilization_percent, 15.7);
  EXPECT_DOUBLE_EQ(*k.reported_device_duty_cycle_percent, 0.0);
  EXPECT_NEAR(*k.device_duty_cycle_percent, 99.74960310811902, 1e-9);
  EXPECT_NEAR(*k.flops_utilization_percent, 59.69161535731864, 1e-9);
  EXPECT_NEAR(*k.hbm_bw_utilization_percent, 36.67535271036472, 1e-9);
  EXPECT_EQ(k.device_type, "TPU v5");
  // The 0.0% values were replaced, and the profile says so.
  EXPECT_GE(p.warnings.size(), 3u);
  // op_profile's top op, with bound_by lent by roofline_model (same base name).
  EXPECT_EQ(p.top_ops[0].name, "dynamic-update-slice.31 and its duplicate(s)");
  EXPECT_EQ(p.top_ops[0].bound_by, "HBM");
  ASSERT_TRUE(p.top_ops[0].roofline_efficiency);
  // hlo_stats rates become utilisations once roofline's peaks are known.
  ASSERT_TRUE(p.hlo_ops[0].hbm_bw_utilization);
  EXPECT_NEAR(*p.hlo_ops[0].hbm_bw_utilization, 34.99250851112546 / 1287.45, 1e-12);
}

TEST(XprofCorpus, DirectoryWithChosenHost) {
  xprof_dir_options opt;
  opt.host = "legacy_demo";
  auto p = read_xprof_dir(corpus(), opt);
  EXPECT_EQ(p.tools.size(), 2u);
  EXPECT_DOUBLE_EQ(*p.kpis.step_time_avg_ms, 9.3);
  EXPECT_EQ(p.top_ops[0].name, "%fusion");
}

} // namespace
} // namespace paratune
