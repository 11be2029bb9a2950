// The diagnosis's numbers derived from a raw XSpace, without xprof: the real
// TPU capture in data/xprof, paratune-tpu-sim's XSpace read back, and the
// newest capture found in MaxText's folder layout.
#include "adapters/profile/proto/xplane.pb.h"
#include "adapters/profile/xprof_reader.hpp"
#include "adapters/profile/xspace_profile.hpp"
#include "adapters/profile/xspace_reader.hpp"
#include "core/input_error.hpp"
#include "sim/tpu/xplane_writer.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace paratune {
namespace {

namespace fs = std::filesystem;

fs::path inference_xplane() {
  return fs::path(test::data_dir()) / "xprof" / "tpu_inference_2.xplane.pb";
}

// openxla/xprof's TPU host-offload stress test on four TPU v6e chips: the
// device waits on copies from host memory (copy-done) most of the time.
TEST(XspaceProfile, RealTpuCaptureGivesStepOpsCategoriesAndRoofline) {
  const auto p = read_xspace_profile({inference_xplane()}, 8);
  const auto& k = p.kpis;
  EXPECT_EQ(k.device_type, "TPU v6 Lite");
  EXPECT_EQ(k.device_core_count, 4);
  EXPECT_EQ(p.tools, std::vector<std::string>{"xplane"});
  EXPECT_FALSE(p.partial);
  // The longest-running program (jit_f) starts every 784.1 ms.
  EXPECT_NEAR(*k.step_time_avg_ms, 784.1267, 1e-4);
  EXPECT_NEAR(*k.device_duty_cycle_percent, 85.1151, 1e-4);
  EXPECT_NEAR(*k.device_idle_percent, 14.8849, 1e-4);
  EXPECT_NEAR(*k.collectives_time_percent, 0.3944, 1e-4);
  // The copies' bytes cross the host link and are left out (6.3985 with them).
  EXPECT_NEAR(*k.hbm_bw_utilization_percent, 2.1494, 1e-4);
  EXPECT_NEAR(*k.flops_utilization_percent, 0.000479, 1e-6);
  // The plane's own peaks: 918 TFLOP/s and 1638 GB/s (1525.5 GiB/s).
  EXPECT_DOUBLE_EQ(*p.peaks.peak_flop_rate_gflops, 918000);
  EXPECT_NEAR(*p.peaks.peak_hbm_bw_gibps, 1525.5, 0.05);
  EXPECT_NEAR(*p.peaks.hbm_ridge_point, 560.44, 0.01);

  ASSERT_EQ(p.top_ops.size(), 8u);
  const auto& first = p.top_ops[0];
  EXPECT_EQ(first.name, "copy-done.2");
  EXPECT_EQ(first.category, "copy-done");
  EXPECT_EQ(first.occurrences, 100u);
  EXPECT_NEAR(first.time_share, 0.23799, 1e-5);
  // Its operand is in host memory ("...T(8,128)S(5)}" in its HLO text): it
  // is bound by the host link, which has no roofline in the plane, and its
  // bytes say nothing of the HBM's bandwidth.
  EXPECT_EQ(first.bound_by, "Host");
  EXPECT_FALSE(first.roofline_efficiency.has_value());
  EXPECT_FALSE(first.hbm_bw_utilization.has_value());
  EXPECT_FALSE(first.hbm_bw_gibps.has_value());
  // The four longest ops are all copies to or from host memory.
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p.top_ops[i].category, "copy-done") << p.top_ops[i].name;
    EXPECT_EQ(p.top_ops[i].bound_by, "Host") << p.top_ops[i].name;
  }
  EXPECT_EQ(first.source, "xplane");
  // A fusion streaming at 78% of HBM bandwidth, from its bytes_accessed.
  EXPECT_EQ(p.top_ops[4].name, "broadcast_add_fusion.1");
  EXPECT_NEAR(*p.top_ops[4].hbm_bw_utilization, 0.7780, 1e-4);
  EXPECT_NEAR(*p.top_ops[4].roofline_efficiency, 0.7780, 1e-4);
  EXPECT_EQ(p.top_ops[4].bound_by, "HBM");
  EXPECT_EQ(p.top_ops[7].name, "all-reduce");
  EXPECT_EQ(p.top_ops[7].occurrences, 3u);

  ASSERT_EQ(p.categories.size(), 5u);
  EXPECT_EQ(p.categories[0].category, "copy-done");
  EXPECT_NEAR(p.categories[0].time_share, 0.82159, 1e-5);
  EXPECT_EQ(p.categories[1].category, "loop fusion");
  EXPECT_EQ(p.categories[2].category, "all-reduce");
  EXPECT_NEAR(p.categories[2].time_share, 0.003944, 1e-6);
}

TEST(XspaceProfile, AFolderWithOnlyTheXspaceReadsAsAProfile) {
  const auto dir = fs::path(test::make_temp_dir("xspace-only"));
  fs::copy_file(inference_xplane(), dir / "host0.xplane.pb");
  const auto p = read_xprof_dir(dir);
  EXPECT_FALSE(p.partial);
  EXPECT_EQ(p.kpis.device_type, "TPU v6 Lite");
  EXPECT_NEAR(*p.kpis.step_time_avg_ms, 784.1267, 1e-4);
  ASSERT_EQ(p.xspace_planes.size(), 7u);
  EXPECT_EQ(p.top_ops.size(), 17u);  // every op of TPU:0 (the default keeps 20)
  fs::remove_all(dir);
}

// A GPU capture has no "XLA Ops" line on its device plane: the diagnosis
// cannot read ops from it, and says so.
TEST(XspaceProfile, ACaptureWithoutXlaOpsIsRefusedByName) {
  tensorflow::profiler::XSpace space;
  read_xspace_message(fs::path(test::data_dir()) / "h100_1gpu" / "jax_step.xplane.pb.gz", space);
  try {
    profile_from_xspace(space, "gpu.xplane.pb", 5);
    ADD_FAILURE() << "derived a profile without XLA Ops";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "gpu.xplane.pb: no TPU or GPU plane with an \"XLA Ops\" line");
  }
}

synthetic_profile simulated() {
  synthetic_profile p;
  p.device_type = "TPU v5p";
  p.step_time_ms = 100;
  p.steps = 3;
  p.duty_cycle_percent = 90;
  p.peak_flop_gflops = 459000;
  p.peak_hbm_gibps = 2575;
  p.ops = {{"fusion.1", "convolution fusion", 0.5, 0.6, 0.2, {}, {}},
           {"loop_fusion.2", "loop fusion", 0.3, 0.05, 0.7, {}, {}},
           {"all-reduce.3", "all-reduce", 0.1, 0.0, 0.01, {}, {}}};
  return p;
}

// What paratune-tpu-sim writes reads back as the profile it simulated.
TEST(XspaceProfile, TheSimulatorsXspaceReadsBackAsSimulated) {
  tensorflow::profiler::XSpace space;
  parse_xspace_message(render_xspace(simulated(), "sim-host"), "sim", space);
  const auto p = profile_from_xspace(space, "sim", 10);
  EXPECT_EQ(p.kpis.device_type, "TPU v5p");
  EXPECT_NEAR(*p.kpis.step_time_avg_ms, 100, 1e-9);
  ASSERT_EQ(p.steps.size(), 3u);
  EXPECT_NEAR(*p.kpis.device_duty_cycle_percent, 90, 1e-9);
  EXPECT_NEAR(*p.kpis.collectives_time_percent, 10, 1e-9);
  EXPECT_NEAR(*p.kpis.flops_utilization_percent, 31.5, 1e-6);  // 0.5 x 60% + 0.3 x 5%
  EXPECT_NEAR(*p.kpis.hbm_bw_utilization_percent, 31.1, 1e-6);  // 10% + 21% + 0.1%
  EXPECT_NEAR(*p.peaks.peak_hbm_bw_gibps, 2575, 1e-6);
  ASSERT_EQ(p.top_ops.size(), 3u);
  EXPECT_EQ(p.top_ops[0].name, "fusion.1");
  EXPECT_NEAR(p.top_ops[0].time_share, 0.5, 1e-9);
  EXPECT_EQ(p.top_ops[0].occurrences, 3u);
  EXPECT_NEAR(*p.top_ops[0].flops_utilization, 0.6, 1e-9);
  EXPECT_EQ(p.top_ops[0].bound_by, "Compute");
  EXPECT_EQ(p.top_ops[1].bound_by, "HBM");
  EXPECT_NEAR(*p.top_ops[1].hbm_bw_utilization, 0.7, 1e-9);
  EXPECT_EQ(p.top_ops[2].category, "all-reduce");
  EXPECT_EQ(p.kpis.host_count, 1);
}

// <base_output_directory>/<run_name>/tensorboard/plugins/profile/<time>/:
// the newest capture is read, whichever of the run's folders is named.
TEST(XspaceProfile, TheNewestCaptureInMaxTextsLayoutIsRead) {
  const auto base = fs::path(test::make_temp_dir("maxtext-run"));
  auto older = simulated();
  older.step_time_ms = 250;
  write_maxtext_xplane(older, base, "llama", "2026_11_27_09_00_00", "host0");
  const auto newest =
      write_maxtext_xplane(simulated(), base, "llama", "2026_11_27_10_30_00", "host0");
  const auto run = base / "llama";
  EXPECT_EQ(newest, run / "tensorboard/plugins/profile/2026_11_27_10_30_00/host0.xplane.pb");
  for (const auto& dir : {run, run / "tensorboard", run / "tensorboard/plugins/profile"})
    EXPECT_EQ(find_newest_xplane_capture(dir), newest.parent_path()) << dir;
  EXPECT_EQ(find_newest_xplane_capture(base), std::nullopt);  // the run is one level down
  EXPECT_NEAR(*read_xprof_dir(run).kpis.step_time_avg_ms, 100, 1e-9);
  EXPECT_THROW(read_xprof_dir(base), input_error);
  fs::remove_all(base);
}

} // namespace
} // namespace paratune
