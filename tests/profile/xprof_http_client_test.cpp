// The HTTP client against a real local server (tests/fixtures/xprof_server.py
// on 127.0.0.1), serving the real corpus files.
#include "adapters/profile/xprof_http_client.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/profile/local_xprof_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace paratune {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using failure = xprof_http_error::failure;

class XprofHttp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = test::make_temp_dir("xprof-http");
    fs::create_directory_symlink(fs::path(test::data_dir()) / "xprof",
                                 fs::path(root_) / "golden_run");
    fs::create_directory(fs::path(root_) / "empty_run");
    // One good tool and one broken one: the fetch is partial, not failed.
    auto mixed = fs::path(root_) / "mixed_run";
    fs::create_directory(mixed);
    fs::copy_file(fs::path(test::data_dir()) / "xprof/golden_tpu-training.overview_page.json",
                  mixed / "h.overview_page.json");
    std::ofstream(mixed / "h.op_profile.json") << "{\"byProgram\": {\"children\": [";
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  static xprof_http_options fast() {
    xprof_http_options o;
    o.connect_timeout = 2000ms;
    o.total_timeout = 10000ms;
    return o;
  }

  failure failure_of(const xprof_http_client& c) {
    try {
      c.runs();
    } catch (const xprof_http_error& e) {
      last_message_ = e.what();
      return e.kind;
    }
    ADD_FAILURE() << "expected xprof_http_error";
    return failure::transport;
  }

  static inline std::string root_;
  std::string last_message_;
};

TEST_F(XprofHttp, ListsRunsToolsHosts) {
  test::local_xprof_server server(root_);
  xprof_http_client c(server.url(), fast());
  EXPECT_EQ(c.runs(), (std::vector<std::string>{"empty_run", "golden_run", "mixed_run"}));
  auto tools = c.tools("golden_run");
  EXPECT_EQ(tools.size(), 6u);
  EXPECT_NE(std::find(tools.begin(), tools.end(), "roofline_model"), tools.end());
  EXPECT_EQ(c.hosts("golden_run", "op_profile"),
            (std::vector<std::string>{"DERIVED_pruned", "golden_tpu-training", "legacy_demo"}));
}

TEST_F(XprofHttp, GzipAnswerIsDecoded) {
  test::local_xprof_server server(root_);
  xprof_http_client c(server.url(), fast());
  std::string body = c.tool_data("golden_run", "op_profile", "golden_tpu-training");
  EXPECT_EQ(body.size(), 5951818u);
  EXPECT_EQ(body.front(), '{');
  EXPECT_NE(body.find("\"byProgram\""), std::string::npos);
}

TEST_F(XprofHttp, FetchesTheGoldenProfile) {
  test::local_xprof_server server(root_);
  xprof_http_client c(server.url(), fast());
  auto p = c.fetch_profile("golden_run", "golden_tpu-training");
  EXPECT_FALSE(p.partial);
  EXPECT_EQ(p.tools.size(), 6u);
  EXPECT_DOUBLE_EQ(*p.kpis.step_time_avg_ms, 96.3);
  EXPECT_DOUBLE_EQ(*p.kpis.mxu_utilization_percent, 15.7);
  EXPECT_NEAR(*p.kpis.device_duty_cycle_percent, 99.74960310811902, 1e-9);
  EXPECT_DOUBLE_EQ(*p.peaks.peak_flop_rate_gflops, 233400.0);
  EXPECT_EQ(p.top_ops[0].name, "dynamic-update-slice.31 and its duplicate(s)");
  EXPECT_EQ(p.top_ops[0].bound_by, "HBM");
}

TEST_F(XprofHttp, BrokenToolMakesFetchPartial) {
  test::local_xprof_server server(root_);
  xprof_http_client c(server.url(), fast());
  auto p = c.fetch_profile("mixed_run");
  EXPECT_TRUE(p.partial);
  EXPECT_EQ(p.tools, (std::vector<std::string>{"overview_page"}));
  EXPECT_DOUBLE_EQ(*p.kpis.step_time_avg_ms, 96.3);
  bool named = false;
  for (const auto& w : p.warnings)
    named |= w.find("tool=op_profile") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST_F(XprofHttp, RouteWithoutPrefixAlsoWorks) {
  test::local_xprof_server server(root_);
  auto opt = fast();
  opt.route_prefix = "";
  xprof_http_client c(server.url() + "/", opt);
  EXPECT_EQ(c.runs().size(), 3u);
}

TEST_F(XprofHttp, RunWithoutKnownToolsIsAnInputError) {
  test::local_xprof_server server(root_);
  xprof_http_client c(server.url(), fast());
  EXPECT_THROW(c.fetch_profile("empty_run"), input_error);
}

TEST_F(XprofHttp, MissingDataIsHttp404) {
  test::local_xprof_server server(root_);
  xprof_http_client c(server.url(), fast());
  try {
    c.tool_data("golden_run", "op_profile", "no-such-host");
    FAIL();
  } catch (const xprof_http_error& e) {
    EXPECT_EQ(e.kind, failure::http_status);
    EXPECT_EQ(e.status, 404);
    EXPECT_NE(std::string(e.what()).find("404"), std::string::npos);
  }
}

TEST_F(XprofHttp, ServerDownIsUnreachable) {
  xprof_http_client c("http://127.0.0.1:" + std::to_string(test::unused_loopback_port()), fast());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(failure_of(c), failure::unreachable);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_NE(last_message_.find("127.0.0.1"), std::string::npos);
}

TEST_F(XprofHttp, SlowServerTimesOut) {
  test::local_xprof_server server(root_, "slow", 10.0);
  auto opt = fast();
  opt.total_timeout = 400ms;
  xprof_http_client c(server.url(), opt);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(failure_of(c), failure::timeout);
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
}

TEST_F(XprofHttp, ServerErrorIsHttpStatus) {
  test::local_xprof_server server(root_, "error");
  xprof_http_client c(server.url(), fast());
  EXPECT_EQ(failure_of(c), failure::http_status);
  EXPECT_NE(last_message_.find("HTTP 500"), std::string::npos);
  EXPECT_NE(last_message_.find("profile conversion failed"), std::string::npos);
}

TEST_F(XprofHttp, GarbageIsMalformed) {
  test::local_xprof_server server(root_, "garbage");
  xprof_http_client c(server.url(), fast());
  EXPECT_EQ(failure_of(c), failure::malformed);
  EXPECT_NE(last_message_.find("not JSON"), std::string::npos);
}

TEST_F(XprofHttp, DroppedConnectionIsTransport) {
  test::local_xprof_server server(root_, "drop");
  xprof_http_client c(server.url(), fast());
  EXPECT_EQ(failure_of(c), failure::transport);
}

TEST_F(XprofHttp, OversizedAnswerIsRefused) {
  test::local_xprof_server server(root_);
  auto opt = fast();
  opt.max_body_bytes = 1000;
  xprof_http_client c(server.url(), opt);
  try {
    c.tool_data("golden_run", "roofline_model", "golden_tpu-training");
    FAIL();
  } catch (const xprof_http_error& e) {
    EXPECT_EQ(e.kind, failure::too_large);
  }
}

} // namespace
} // namespace paratune
