// The Analyzer on evidence built in code: each bottleneck class from the
// signal that defines it.

#include <gtest/gtest.h>

#include "core/diagnosis/analyzer.hpp"
#include "core/diagnosis/op_classes.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "tests/diagnose/diagnose_support.hpp"

namespace paratune {
namespace {

using test::make_op;

TEST(op_classes, collectives_split_by_how_busy_they_keep_a_memory) {
  // Waiting: a fraction of a percent of every peak.
  EXPECT_EQ(classify_op(make_op("all-reduce.1", "all-reduce", 0.1, "HBM", 0, 0.0004)),
            op_class::communication);
  // Streaming its buffers at 11% of HBM bandwidth.
  EXPECT_EQ(classify_op(make_op("all-reduce.12", "all-reduce", 0.1, "HBM", 0, 0.11)),
            op_class::hbm_bandwidth);
  // Just under the threshold still waits.
  EXPECT_EQ(classify_op(make_op("all-reduce.2", "all-reduce", 0.1, "HBM", 0,
                                collective_busy_threshold * 0.99)),
            op_class::communication);
  // A collective matmul at its compute roofline computes.
  EXPECT_EQ(classify_op(make_op("all-gather-einsum.3", "custom-call", 0.1, "Compute", 0.8, 0.1)),
            op_class::compute);
  EXPECT_EQ(classify_op(make_op("collective-permute.3", "collective-permute", 0.1, "VMEM Write",
                                0, 0)),
            op_class::communication);
}

TEST(op_classes, ops_by_bound_by_and_kernels_by_name) {
  EXPECT_EQ(classify_op(make_op("fusion.7", "convolution fusion", 0.1, "Compute", 0.7, 0.1)),
            op_class::compute);
  EXPECT_EQ(classify_op(make_op("fusion.8", "loop fusion", 0.1, "VMEM Read", 0.1, 0.2)),
            op_class::hbm_bandwidth);
  EXPECT_EQ(classify_op(make_op("custom-call.9", "custom-call", 0.1, "Unknown", 0, 0)),
            op_class::unknown);
  op_evidence k;
  k.name = "sm90_xmma_gemm_bf16bf16_bf16f32";
  EXPECT_EQ(classify_op(k), op_class::compute);
  k.name = "void at::native::vectorized_elementwise_kernel<4>";
  EXPECT_EQ(classify_op(k), op_class::hbm_bandwidth);
  k.name = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
  k.collective = looks_collective(k.name, "");
  EXPECT_TRUE(k.collective);
  EXPECT_EQ(classify_op(k), op_class::communication);
}

// The XSpace reader says "Host" for an op whose operand or result is in
// XLA's host memory space (S(5)): such a copy waits on the host link, so its
// time counts toward input_host, not HBM, whatever its name or HBM share.
TEST(op_classes, copies_bound_by_host_wait_on_the_host_link) {
  const auto copy = make_op("copy-done.2", "copy-done", 0.24, "Host", 0, 0.019);
  EXPECT_EQ(classify_op(copy), op_class::host_transfer);
  EXPECT_EQ(explain_class(copy, op_class::host_transfer),
            "bound by Host: copies to or from host memory (XLA memory space S(5)) over the "
            "host link");
  // The same copy as xprof labels it without the memory space: HBM.
  EXPECT_EQ(classify_op(make_op("copy-done.2", "copy-done", 0.24, "HBM", 0, 0.019)),
            op_class::hbm_bandwidth);
  // A collective that moves host memory waits on the host link too.
  const auto gather = make_op("all-gather-start.1", "all-gather", 0.1, "Host", 0, 0.2);
  ASSERT_TRUE(gather.collective);
  EXPECT_EQ(classify_op(gather), op_class::host_transfer);
  EXPECT_EQ(explain_class(gather, op_class::host_transfer),
            "bound by Host: copies to or from host memory (XLA memory space S(5)) over the "
            "host link");
  EXPECT_STREQ(to_string(op_class::host_transfer), "host_transfer");
}

// A stored diagnosis keeps each op's class, host_transfer included.
TEST(op_classes, every_class_survives_the_wire) {
  diagnosis_report r;
  r.bottleneck = bottleneck_class::input_host;
  for (const op_class c : all_op_classes) {
    top_op t;
    t.name = to_string(c);
    t.resource = c;
    r.top_ops.push_back(t);
  }
  const auto back = wire::from_wire(wire::to_wire(r, 784));
  EXPECT_EQ(back.bottleneck, bottleneck_class::input_host);
  ASSERT_EQ(back.top_ops.size(), std::size(all_op_classes));
  for (std::size_t i = 0; i < back.top_ops.size(); ++i)
    EXPECT_EQ(back.top_ops[i].resource, all_op_classes[i]) << back.top_ops[i].name;
}

TEST(op_classes, each_class_counts_toward_its_bottleneck) {
  EXPECT_EQ(bottleneck_of(op_class::compute), bottleneck_class::compute);
  EXPECT_EQ(bottleneck_of(op_class::hbm_bandwidth), bottleneck_class::hbm_bandwidth);
  EXPECT_EQ(bottleneck_of(op_class::communication), bottleneck_class::communication);
  EXPECT_EQ(bottleneck_of(op_class::host_transfer), bottleneck_class::input_host);
  EXPECT_EQ(bottleneck_of(op_class::unknown), bottleneck_class::unknown);
}

diagnosis_evidence busy_tpu() {
  diagnosis_evidence e;
  e.kpis.step_time_ms = 1000;
  e.kpis.duty_cycle_percent = 99.5;
  e.kpis.comm_percent = 4;
  return e;
}

TEST(analyzer, top_five_and_whole_profile_count_half_each) {
  auto e = busy_tpu();
  for (int i = 0; i < 5; ++i)
    e.ops.push_back(make_op("all-reduce." + std::to_string(i), "all-reduce", 0.01, "HBM", 0, 1e-4));
  for (int i = 0; i < 20; ++i)
    e.ops.push_back(make_op("fusion." + std::to_string(i), "convolution fusion", 0.005 + 1e-4 * i,
                            "Compute", 0.6, 0.1));
  auto r = analyze_evidence(e);
  // top five: all collectives; whole profile: 0.05 of 0.169 in collectives;
  // both weighed by the busy share (op classes explain busy time only).
  const double all_comm = 0.05 / (0.05 + 20 * 0.005 + 190e-4);
  EXPECT_NEAR(r.scores.at("communication"), 0.995 * (0.5 * 1.0 + 0.5 * all_comm), 1e-12);
  EXPECT_NEAR(r.scores.at("compute"), 0.995 * 0.5 * (1 - all_comm), 1e-12);
  EXPECT_EQ(r.bottleneck, bottleneck_class::communication);
  EXPECT_EQ(r.secondary, bottleneck_class::compute);
  ASSERT_EQ(r.top_ops.size(), 5u);
  EXPECT_EQ(r.top_ops[0].resource, op_class::communication);
}

TEST(analyzer, out_of_memory_wins_over_everything) {
  auto e = busy_tpu();
  e.ops.push_back(make_op("fusion.1", "convolution fusion", 0.9, "Compute", 0.7, 0.1));
  e.kpis.oom = true;
  e.kpis.oom_message = "CUDA out of memory";
  auto r = analyze_evidence(e);
  EXPECT_EQ(r.bottleneck, bottleneck_class::memory_capacity);
  ASSERT_FALSE(r.kpis.empty());
  EXPECT_EQ(r.kpis.back().name, "memory");
  EXPECT_EQ(r.kpis.back().status, "bad");
}

TEST(analyzer, an_idle_device_waits_for_the_host) {
  diagnosis_evidence e;
  e.kpis.duty_cycle_percent = 23.6;
  e.ops.push_back(make_op("fusion.1", "convolution fusion", 0.9, "Compute", 0.7, 0.1));
  auto r = analyze_evidence(e);
  EXPECT_EQ(r.bottleneck, bottleneck_class::input_host);
  EXPECT_NEAR(r.scores.at("input_host"), 0.764, 1e-9);
}

// A busy device (duty cycle 99.5%: no idle share to score) whose time goes
// to copies from host memory waits for the host all the same.
TEST(analyzer, host_memory_copies_mean_the_device_waits_for_the_host) {
  auto e = busy_tpu();
  for (int i = 0; i < 4; ++i)
    e.ops.push_back(make_op("copy-done." + std::to_string(i), "copy-done", 0.2, "Host", 0, 0.019));
  e.ops.push_back(make_op("fusion.1", "loop fusion", 0.1, "HBM", 0, 0.7));
  auto r = analyze_evidence(e);
  EXPECT_EQ(r.bottleneck, bottleneck_class::input_host);
  EXPECT_EQ(r.secondary, bottleneck_class::unknown);  // HBM's 0.11 is under 0.15
  // All five ops are the top five: 0.8 of their 0.9 are host copies.
  EXPECT_NEAR(r.scores.at("input_host"), 0.995 * 8 / 9, 1e-12);
  EXPECT_NEAR(r.scores.at("hbm_bandwidth"), 0.995 / 9, 1e-12);
  EXPECT_NEAR(r.time_by_class.at("host_transfer"), 8.0 / 9, 1e-12);
  ASSERT_EQ(r.top_ops.size(), 5u);
  EXPECT_EQ(r.top_ops[0].resource, op_class::host_transfer);
  EXPECT_EQ(r.top_ops[4].resource, op_class::hbm_bandwidth);
  EXPECT_NE(r.summary.find("4 of the top 5 operations are copies to or from host memory"),
            std::string::npos)
      << r.summary;
}

TEST(analyzer, pipeline_wait_timers_mean_a_bubble) {
  diagnosis_evidence e;
  e.platform = device_platform::gpu;
  e.kpis.step_time_ms = 1000;
  e.kpis.bubble_percent = 40;
  e.kpis.comm_percent = 5;
  e.kpis.exposed_comm_percent = 5;
  auto r = analyze_evidence(e);
  EXPECT_EQ(r.bottleneck, bottleneck_class::pipeline_bubble);
  EXPECT_NEAR(r.scores.at("pipeline_bubble"), 0.4, 1e-12);
}

TEST(analyzer, nothing_to_go_on_is_unknown) {
  diagnosis_evidence e;
  e.kpis.step_time_ms = 100;
  auto r = analyze_evidence(e);
  EXPECT_EQ(r.bottleneck, bottleneck_class::unknown);
  EXPECT_LT(r.confidence, 0.5);
  // Without ops a high FLOP utilisation is the compute signal.
  e.kpis.flops_utilization_percent = 70;
  EXPECT_EQ(analyze_evidence(e).bottleneck, bottleneck_class::compute);
}

TEST(analyzer, kpi_checks_rate_against_the_thresholds) {
  kpi_evidence k;
  k.duty_cycle_percent = 80;
  k.comm_percent = 30;
  k.memory_used_mib = 78000;
  k.memory_limit_mib = 81920;
  auto checks = check_kpis(k);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].name, "duty_cycle");
  EXPECT_EQ(checks[0].status, "warn");
  EXPECT_EQ(checks[1].name, "communication");
  EXPECT_EQ(checks[1].status, "bad");
  EXPECT_EQ(checks[2].name, "memory");
  EXPECT_EQ(checks[2].status, "warn");
  EXPECT_NEAR(checks[2].value, 100.0 * 78000 / 81920, 1e-9);
}

} // namespace
} // namespace paratune
