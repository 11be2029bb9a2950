// The dcgm-exporter scrape client against a real local HTTP server
// (tests/fixtures/metrics_server.py on 127.0.0.1) serving data/dcgm files.
#include "adapters/telemetry/dcgm_scrape.hpp"
#include "tests/fixtures/local_http_server.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace paratune {
namespace {

using namespace std::chrono_literals;

std::string recorded(const std::string& name) { return test::data_dir() + "/dcgm/" + name; }

test::local_http_server serve(const std::string& file, const std::string& mode = "normal",
                              double delay_s = 0) {
  return test::local_http_server("metrics_server.py",
                                 {"--file", file, "--mode", mode, "--delay", std::to_string(delay_s)});
}

scrape_error error_of(const dcgm_scrape_result& r) {
  if (const auto* e = std::get_if<scrape_error>(&r))
    return *e;
  ADD_FAILURE() << "expected a scrape_error";
  return {};
}

TEST(DcgmScrape, ReadsTheRecordedA100) {
  auto server = serve(recorded("nvidia_docs_a100_mig_under_load.prom"));
  auto r = scrape_dcgm(server.url() + "/metrics");
  ASSERT_TRUE(std::holds_alternative<dcgm_scrape>(r)) << error_of(r).message;
  const auto& s = std::get<dcgm_scrape>(r);
  EXPECT_EQ(s.series, 8u); // six whole-GPU fields paratune reads, two of the MIG instance
  EXPECT_EQ(s.malformed_lines, 0u);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(*s.gpus[0].value(trial_metric::power_w), 409.692);
  EXPECT_DOUBLE_EQ(*s.gpus[0].value(trial_metric::tensor_active), 0.929260);
  EXPECT_DOUBLE_EQ(*s.gpus[0].value(trial_metric::framebuffer_used_mib), 4845);
}

TEST(DcgmScrape, ReadsTheRecordedT4) {
  auto server = serve(recorded("datadog_t4_dcgm_exporter.prom"));
  auto r = scrape_dcgm(server.url() + "/metrics");
  ASSERT_TRUE(std::holds_alternative<dcgm_scrape>(r)) << error_of(r).message;
  const auto& g = std::get<dcgm_scrape>(r).gpus.at(0);
  EXPECT_EQ(g.model, "Tesla T4");
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::gpu_utilization_pct), 0);
  EXPECT_DOUBLE_EQ(*g.value(trial_metric::power_w), 8.969);
}

TEST(DcgmScrape, MissingPathIsHttp404) {
  auto server = serve(recorded("datadog_t4_dcgm_exporter.prom"));
  const auto url = server.url() + "/nothing-here";
  auto e = error_of(scrape_dcgm(url));
  EXPECT_EQ(e.kind, scrape_failure::http_status);
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(e.message, "GET " + url + " answered HTTP 404");
}

TEST(DcgmScrape, SlowServerTimesOut) {
  auto server = serve(recorded("datadog_t4_dcgm_exporter.prom"), "slow", 5);
  dcgm_scrape_options o;
  o.total_timeout = 500ms;
  const auto t0 = std::chrono::steady_clock::now();
  auto e = error_of(scrape_dcgm(server.url() + "/metrics", o));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_EQ(e.kind, scrape_failure::timeout);
  EXPECT_NE(e.message.find(server.url() + "/metrics"), std::string::npos);
  EXPECT_NE(e.message.find("(timeout)"), std::string::npos);
}

TEST(DcgmScrape, HtmlBodyIsNotPrometheus) {
  const auto dir = test::make_temp_dir("dcgm-scrape");
  const auto page = dir + "/login.html";
  std::ofstream(page) << "<!DOCTYPE html>\n<html><body>Sign in</body></html>\n";
  auto server = serve(page);
  auto e = error_of(scrape_dcgm(server.url() + "/metrics"));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(e.kind, scrape_failure::not_prometheus);
  EXPECT_EQ(e.status, 200);
  EXPECT_NE(e.message.find("2 malformed lines; line 1: expected a metric name at column 1"),
            std::string::npos)
    << e.message;
}

TEST(DcgmScrape, BodyPastTheLimitIsTooLarge) {
  auto server = serve(recorded("datadog_t4_dcgm_exporter.prom")); // 5285 bytes
  dcgm_scrape_options o;
  o.max_body_bytes = 1000;
  auto e = error_of(scrape_dcgm(server.url() + "/metrics", o));
  EXPECT_EQ(e.kind, scrape_failure::too_large);
  EXPECT_NE(e.message.find("answer larger than 1000 bytes"), std::string::npos);
}

TEST(DcgmScrape, NothingListeningIsUnreachable) {
  const auto url = "http://127.0.0.1:" + std::to_string(test::unused_loopback_port()) + "/metrics";
  auto e = error_of(scrape_dcgm(url));
  EXPECT_EQ(e.kind, scrape_failure::unreachable);
  EXPECT_NE(e.message.find(url), std::string::npos);
}

} // namespace
} // namespace paratune
