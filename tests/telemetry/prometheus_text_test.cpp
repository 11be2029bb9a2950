// The Prometheus text parser on recorded dcgm-exporter output (data/dcgm)
// and on hostile text.
#include "core/telemetry/dcgm_sample.hpp"
#include "core/telemetry/prometheus_text.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

namespace paratune {
namespace {

std::string read_data(const std::string& name) {
  std::ifstream in(test::data_dir() + "/dcgm/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

prometheus_sample only_sample(std::string_view text) {
  auto p = parse_prometheus_text(text);
  EXPECT_EQ(p.malformed_lines, 0u) << (p.malformed.empty() ? "" : p.malformed[0].why);
  EXPECT_EQ(p.samples.size(), 1u);
  return p.samples.empty() ? prometheus_sample{} : p.samples[0];
}

/// The reason given for a text of one malformed line, checking its number.
std::string why_malformed(std::string_view text, std::size_t line = 1) {
  auto p = parse_prometheus_text(text);
  EXPECT_TRUE(p.samples.empty());
  EXPECT_EQ(p.malformed_lines, 1u);
  if (p.malformed.empty())
    return "";
  EXPECT_EQ(p.malformed[0].line, line);
  return p.malformed[0].why;
}

TEST(PrometheusText, NvidiaDocsA100UnderLoad) {
  auto p = parse_prometheus_text(read_data("nvidia_docs_a100_mig_under_load.prom"));
  EXPECT_EQ(p.samples.size(), 21u);
  EXPECT_EQ(p.malformed_lines, 0u);
  EXPECT_EQ(p.comment_lines, 0u);
  EXPECT_FALSE(p.truncated);
  const auto& power = p.samples[4];
  EXPECT_EQ(power.metric, "DCGM_FI_DEV_POWER_USAGE");
  EXPECT_DOUBLE_EQ(power.value, 409.692);
  EXPECT_EQ(power.line, 5u);
  EXPECT_EQ(*power.label("UUID"), "GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
  EXPECT_EQ(*power.label("Hostname"), "ub20-a100-k8s");
  EXPECT_EQ(power.label("modelName"), nullptr);
  EXPECT_FALSE(power.timestamp_ms);
  // After the blank line: the MIG instance's series, line numbers counting it.
  EXPECT_EQ(p.samples[17].line, 19u);
  EXPECT_EQ(*p.samples[17].label("GPU_I_ID"), "13");
}

TEST(PrometheusText, DatadogT4WithHelpAndType) {
  auto p = parse_prometheus_text(read_data("datadog_t4_dcgm_exporter.prom"));
  EXPECT_EQ(p.samples.size(), 16u);
  EXPECT_EQ(p.comment_lines, 32u);
  EXPECT_EQ(p.malformed_lines, 0u);
  EXPECT_EQ(p.samples[0].metric, "DCGM_FI_DEV_SM_CLOCK");
  EXPECT_EQ(p.samples[0].line, 3u);
  EXPECT_EQ(*p.samples[0].label("DCGM_FI_PROCESS_NAME"), "/usr/bin/dcgm-exporter");
  EXPECT_EQ(p.samples[0].labels.size(), 7u);
}

TEST(DcgmSample, A100WholeGpuLeavesMigInstanceOut) {
  auto gpus = dcgm_gpu_samples(parse_prometheus_text(read_data("nvidia_docs_a100_mig_under_load.prom")));
  ASSERT_EQ(gpus.size(), 1u);
  const auto& g = gpus[0];
  EXPECT_EQ(g.gpu, 0);
  EXPECT_EQ(g.uuid, "GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
  EXPECT_EQ(g.host, "ub20-a100-k8s");
  EXPECT_EQ(g.model, "");
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::power_w), 409.692);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::framebuffer_used_mib), 4845);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::framebuffer_free_mib), 35690);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::tensor_active), 0.929260); // not the instance's 0.930433
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::graphics_engine_active), 0.995630);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::sm_clock_mhz), 1215);
  EXPECT_FALSE(g.value(trial_metric::gpu_utilization_pct)); // not reported under MIG
}

TEST(DcgmSample, T4Idle) {
  auto gpus = dcgm_gpu_samples(parse_prometheus_text(read_data("datadog_t4_dcgm_exporter.prom")));
  ASSERT_EQ(gpus.size(), 1u);
  const auto& g = gpus[0];
  EXPECT_EQ(g.model, "Tesla T4");
  EXPECT_EQ(g.host, "424773df46e0");
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::gpu_utilization_pct), 0);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::power_w), 8.969);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::framebuffer_used_mib), 0);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::framebuffer_free_mib), 15109);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::sm_clock_mhz), 300);
  EXPECT_FALSE(g.value(trial_metric::tensor_active));
}

TEST(DcgmSample, GpusByIndexAndBadLabelsLeftOut) {
  auto gpus = dcgm_gpu_samples(parse_prometheus_text(
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"3\"} 87\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} 12\n"
    "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} NaN\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"-1\"} 5\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"1x\"} 5\n"
    "DCGM_FI_DEV_GPU_UTIL{gpu=\"4096\"} 5\n"
    "DCGM_FI_DEV_GPU_UTIL 5\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"2\"} 61\n"));
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].gpu, 1);
  EXPECT_DOUBLE_EQ(*gpus[0].value(trial_metric::gpu_utilization_pct), 12);
  EXPECT_FALSE(gpus[0].value(trial_metric::power_w)); // NaN says nothing
  EXPECT_EQ(gpus[1].gpu, 3);
  EXPECT_DOUBLE_EQ(*gpus[1].value(trial_metric::gpu_utilization_pct), 87);
}

TEST(DcgmSample, FieldNamesAreEnums) {
  EXPECT_EQ(dcgm_field_metric("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"), trial_metric::tensor_active);
  EXPECT_EQ(dcgm_field_metric("DCGM_FI_DEV_FB_USED"), trial_metric::framebuffer_used_mib);
  EXPECT_FALSE(dcgm_field_metric("DCGM_FI_DEV_GPU_TEMP"));
  EXPECT_EQ(dcgm_fields().size(), 7u);
}

TEST(PrometheusText, LabelEscapes) {
  auto s = only_sample(R"(m{path="C:\\dir",quote="say \"hi\"",nl="a\nb"} 1)");
  EXPECT_EQ(*s.label("path"), "C:\\dir");
  EXPECT_EQ(*s.label("quote"), "say \"hi\"");
  EXPECT_EQ(*s.label("nl"), "a\nb");
  auto braces = only_sample(R"(m{v="}{,= "} 2)");
  EXPECT_EQ(*braces.label("v"), "}{,= ");
}

TEST(PrometheusText, SpacingEmptyLabelsTrailingCommaCrlf) {
  EXPECT_EQ(only_sample("m{gpu=\"0\", UUID=\"GPU-6\"} 139").labels.size(), 2u);
  EXPECT_EQ(only_sample("m{} 1").labels.size(), 0u);
  EXPECT_EQ(only_sample("m{a=\"1\",} 1").labels.size(), 1u);
  EXPECT_EQ(only_sample("  m \t 7\r\n").value, 7);
  EXPECT_EQ(only_sample("ns:sub_total 1").metric, "ns:sub_total");
}

TEST(PrometheusText, TimestampsOptionalIntegers) {
  EXPECT_EQ(*only_sample("m 1 1700000000123").timestamp_ms, 1700000000123);
  EXPECT_EQ(*only_sample("m 1 -5").timestamp_ms, -5);
  EXPECT_NE(why_malformed("m 1 1.5").find("timestamp '1.5'"), std::string::npos);
  EXPECT_NE(why_malformed("m 1 12 extra").find("after the timestamp"), std::string::npos);
}

TEST(PrometheusText, SpecialValues) {
  EXPECT_TRUE(std::isnan(only_sample("m NaN").value));
  EXPECT_EQ(only_sample("m +Inf").value, INFINITY);
  EXPECT_EQ(only_sample("m -Inf").value, -INFINITY);
  EXPECT_DOUBLE_EQ(only_sample("m 1.5e3").value, 1500);
  EXPECT_DOUBLE_EQ(only_sample("m -0.25").value, -0.25);
  EXPECT_DOUBLE_EQ(only_sample("m 9223372036854775794").value, 9223372036854775794.0);
  EXPECT_EQ(only_sample("m 1e999").value, INFINITY);
}

TEST(PrometheusText, MalformedLinesNamedAndSkipped) {
  EXPECT_NE(why_malformed(R"(m{a="x\ty"} 1)").find("unknown escape '\\t'"), std::string::npos);
  EXPECT_NE(why_malformed(R"(m{a="open} 1)").find("not closed"), std::string::npos);
  EXPECT_NE(why_malformed("m{a=\"1\"").find("expected ',' or '}'"), std::string::npos);
  EXPECT_NE(why_malformed("m{a=1} 1").find("expected '\"'"), std::string::npos);
  EXPECT_NE(why_malformed("m{a=\"1\" b=\"2\"} 1").find("expected ',' or '}'"), std::string::npos);
  EXPECT_NE(why_malformed("m{a=\"1\",a=\"2\"} 1").find("label 'a' given twice"), std::string::npos);
  EXPECT_NE(why_malformed("m{9a=\"1\"} 1").find("label name"), std::string::npos);
  EXPECT_NE(why_malformed("9m 1").find("metric name"), std::string::npos);
  EXPECT_NE(why_malformed("m").find("no value after 'm'"), std::string::npos);
  EXPECT_NE(why_malformed("m abc").find("value 'abc' is not a number"), std::string::npos);
  EXPECT_NE(why_malformed("m 0x1p3").find("not a number"), std::string::npos);
  EXPECT_NE(why_malformed("m 1.0abc").find("not a number"), std::string::npos);
  EXPECT_NE(why_malformed("m nan(1)").find("not a number"), std::string::npos);
  EXPECT_NE(why_malformed("m{a:b=\"1\"} 1").find("expected '='"), std::string::npos);
}

TEST(PrometheusText, GoodLinesAroundABadOneSurvive) {
  auto p = parse_prometheus_text("# HELP a x\na 1\n<html><body>oops</body></html>\n\nb 2\n");
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.samples[1].metric, "b");
  EXPECT_EQ(p.samples[1].line, 5u);
  ASSERT_EQ(p.malformed.size(), 1u);
  EXPECT_EQ(p.malformed[0].line, 3u);
  EXPECT_EQ(p.comment_lines, 1u);
}

TEST(PrometheusText, LimitsBoundWhatIsKept) {
  prometheus_limits limits;
  limits.max_labels = 2;
  limits.max_line_bytes = 64;
  limits.max_samples = 2;
  limits.max_reported = 1;
  auto p = parse_prometheus_text("a{x=\"1\",y=\"2\",z=\"3\"} 1\n"
                                 "b{x=\"" + std::string(100, 'v') + "\"} 1\n"
                                 "c 1\nd 2\ne 3\n",
                                 limits);
  EXPECT_EQ(p.malformed_lines, 2u);
  ASSERT_EQ(p.malformed.size(), 1u);
  EXPECT_NE(p.malformed[0].why.find("more than 2 labels"), std::string::npos);
  EXPECT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.skipped_samples, 1u);
}

TEST(PrometheusText, TextPastMaxBytesIsCutAtALineEnd) {
  prometheus_limits limits;
  limits.max_bytes = 10;
  auto p = parse_prometheus_text("a 1\nb 22\ncc 333\n", limits); // the cut falls inside "cc 333"
  EXPECT_TRUE(p.truncated);
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.samples[1].value, 22);
  EXPECT_EQ(p.malformed_lines, 0u);
}

TEST(PrometheusText, FilterKeepsOnlyWantedMetrics) {
  auto p = parse_prometheus_text("a 1\nb 2\na{x=\"1\"} 3\nbad line\n", {}, {"a"});
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.samples[1].value, 3);
  EXPECT_EQ(p.skipped_samples, 1u);
  EXPECT_EQ(p.malformed_lines, 1u); // an unwanted line must still be Prometheus text
}

TEST(PrometheusText, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string text(1 + rng() % 400, '\0');
    for (auto& c : text)
      c = "m{}=\",\\ \n#01.eE+-naIfx\t"[rng() % 24];
    auto p = parse_prometheus_text(text);
    EXPECT_LE(p.malformed.size(), 20u);
    for (const auto& m : p.malformed)
      EXPECT_GE(m.line, 1u);
  }
}

} // namespace
} // namespace paratune
