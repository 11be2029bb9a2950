// The plausibility check of a measured throughput (core/diagnosis/plausibility.hpp):
// at its boundaries, and on the real logs: the MDK log's 800+ TFLOP/s per
// H100 is flagged, BigScience's V100 run and the ASAP scenarios are not.

#include <gtest/gtest.h>

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/diagnosis/analyzer.hpp"
#include "core/diagnosis/plausibility.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

// A device of 1000 TFLOP/s: the ceiling is 748 TFLOP/s (0.68 * 1.10).
kpi_evidence rate(double tflops) {
  kpi_evidence k;
  k.tflops_per_device = tflops;
  k.peak_tflops_per_device = 1000;
  k.devices = 8;
  return k;
}

// A step floor of 748 ms: a plausible iteration takes 1000 ms or more.
kpi_evidence step(double ms) {
  kpi_evidence k;
  k.iteration_time_ms = ms;
  k.step_floor_ms = 748;
  return k;
}

TEST(plausibility, the_ceiling_is_the_best_published_mfu_plus_ten_percent) {
  EXPECT_NEAR(plausibility_limits{}.ceiling_mfu, 0.748, 1e-12);
}

TEST(plausibility, a_rate_just_under_the_ceiling_passes) {
  const auto f = check_throughput(rate(747), "X100");
  EXPECT_TRUE(f.plausible);
  EXPECT_TRUE(f.warning.empty());
  EXPECT_NEAR(f.mfu, 0.747, 1e-12);
}

TEST(plausibility, a_rate_just_over_the_ceiling_is_implausible_not_impossible) {
  const auto f = check_throughput(rate(749), "X100");
  EXPECT_FALSE(f.plausible);
  EXPECT_FALSE(f.impossible);
  EXPECT_NEAR(f.factor, 749.0 / 748, 1e-9);
  EXPECT_NE(f.warning.find("implausible throughput: 749.0 TFLOP/s per device is 74.9% of the "
                           "X100's 1000 TFLOP/s peak"), std::string::npos) << f.warning;
  EXPECT_NE(f.warning.find("x1.00 beyond the 74.8%"), std::string::npos) << f.warning;
}

TEST(plausibility, a_rate_above_the_peak_is_impossible) {
  const auto f = check_throughput(rate(1100), "X100");
  EXPECT_TRUE(f.impossible);
  EXPECT_NEAR(f.factor, 1100.0 / 748, 1e-9);
  EXPECT_NE(f.warning.find("impossible throughput"), std::string::npos) << f.warning;
  EXPECT_NE(f.warning.find("more than the device can deliver"), std::string::npos);
  // 8 devices x 1.47: the rate fits about 12 devices.
  EXPECT_NE(f.warning.find("fits about 12 devices, not 8"), std::string::npos) << f.warning;
}

TEST(plausibility, an_iteration_at_the_step_floor_boundary) {
  EXPECT_TRUE(check_throughput(step(1001), "").plausible);
  const auto near = check_throughput(step(999), "");
  EXPECT_FALSE(near.plausible);
  EXPECT_FALSE(near.impossible);
  const auto under = check_throughput(step(700), "");
  EXPECT_TRUE(under.impossible);
  EXPECT_NEAR(under.factor, 1000.0 / 700, 1e-9);
  EXPECT_NE(under.warning.find("a 700.0 ms step runs the model's own FLOP count at 106.9% of "
                               "peak"), std::string::npos) << under.warning;
}

TEST(plausibility, nothing_to_check_without_the_device) {
  kpi_evidence k;
  k.tflops_per_device = 5000;  // no peak: no verdict
  k.flops_utilization_percent = 95;  // a profiler's utilisation is measured, not counted
  EXPECT_TRUE(check_throughput(k, "").plausible);
}

diagnosis_outcome diagnose_log(const std::string& experiment, const std::string& log) {
  test::use_source_configs();
  const auto exp = load_experiment(test::source_dir() + "/tests/fixtures/corpus_experiments/"
                                   + experiment);
  evidence_request r;
  r.megatron_log = test::data_dir() + "/megatron_logs/" + log;
  return run_diagnosis(exp, gather_evidence(r), {}, {});
}

const kpi_check* find_kpi(const diagnosis_report& r, const std::string& name) {
  for (const auto& k : r.kpis)
    if (k.name == name)
      return &k;
  return nullptr;
}

bool has_plausibility_warning(const diagnosis_report& r) {
  for (const auto& w : r.warnings)
    if (w.find("throughput: ") != std::string::npos)
      return true;
  return false;
}

// 807.3 TFLOP/s (the median) of an H100's 989 at fp16 is 81.6%: x1.09 the
// 74.8% ceiling; the rate would fit 8.7 GPUs, not the experiment's 8.
TEST(plausibility_logs, the_mdk_log_on_h100_is_flagged_and_its_confidence_lowered) {
  const auto out = diagnose_log("megatron-mdk.yaml",
                                "mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt");
  const auto* flops = find_kpi(out.report, "flops_utilization");
  ASSERT_NE(flops, nullptr);
  EXPECT_EQ(flops->status, "implausible");
  EXPECT_NEAR(flops->value, 81.63, 0.01);
  ASSERT_EQ(out.report.warnings.size(), 1u);
  const auto& w = out.report.warnings[0];
  for (const char* part : {"implausible throughput: 807.3 TFLOP/s per device is 81.6% of the "
                           "H100-SXM5-80GB's 989 TFLOP/s peak",
                           "x1.09 beyond the 74.8% of peak", "OptiCo Fig. 5",
                           "the wrong cluster or device count",
                           "fits about 9 devices, not 8", "counts FLOPs differently",
                           "keeps 60% of its confidence"})
    EXPECT_NE(w.find(part), std::string::npos) << part << " in " << w;
  // The model's own count agrees: 11001 ms of FLOPs at peak in a 14100 ms step.
  EXPECT_NE(w.find("at 78.0% of peak"), std::string::npos) << w;
  EXPECT_NE(out.report.summary.find("see the warnings"), std::string::npos);

  // Without the device's limits the same evidence is taken at face value.
  auto unchecked = out.evidence;
  unchecked.kpis.peak_tflops_per_device.reset();
  unchecked.kpis.step_floor_ms.reset();
  const auto face_value = analyze_evidence(unchecked);
  EXPECT_TRUE(face_value.warnings.empty());
  EXPECT_NEAR(face_value.confidence, 0.95, 1e-9);
  EXPECT_NEAR(out.report.confidence, 0.95 * 0.6, 1e-9);
  EXPECT_EQ(out.report.bottleneck, face_value.bottleneck);
}

TEST(plausibility_logs, the_bigscience_log_is_plausible) {
  const auto out = diagnose_log("megatron-bigscience.yaml",
                                "bigscience_gpt2-meg_n4_dp1_tp4_pp4-1809579.txt");
  EXPECT_FALSE(has_plausibility_warning(out.report)) << out.report.warnings.size();
  ASSERT_TRUE(out.evidence.kpis.step_floor_ms);
  ASSERT_TRUE(out.evidence.kpis.iteration_time_ms);
  EXPECT_GT(*out.evidence.kpis.iteration_time_ms,
            *out.evidence.kpis.step_floor_ms / plausibility_limits{}.ceiling_mfu);
}

TEST(plausibility_logs, no_asap_scenario_trips_the_check) {
  for (const char* scenario : {"v5p-512-compute", "v6e-16-hbm", "v5e-256-comm"}) {
    const auto dir = test::asap_dir(scenario);
    evidence_request r;
    r.xprof = dir;
    const auto out =
        run_diagnosis(test::load_fixture_experiment(dir), gather_evidence(r), {}, {});
    EXPECT_FALSE(has_plausibility_warning(out.report)) << scenario;
    const auto* flops = find_kpi(out.report, "flops_utilization");
    if (flops) {
      EXPECT_NE(flops->status, "implausible") << scenario;
    }
  }
}

} // namespace
} // namespace paratune
