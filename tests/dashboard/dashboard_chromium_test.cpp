// The dashboard's pages as a browser shows them: a real `paratune tune`
// session in a pool, the dashboard over it, and headless Chromium loading
// the page with its script and dumping the DOM the script built.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <set>
#include <regex>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/model_flops_utilization.hpp"
#include "dashboard/dashboard_server.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "report/svg_canvas.hpp"
#include "storage/message_pool.hpp"
#include "tests/dashboard/built_session.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

constexpr const char* chromium = "/usr/bin/chromium";

/// One row of the trial table as the page's script built it.
struct table_row {
  std::string status;
  std::string tflops;  ///< data-tflops: the pool's number as JavaScript prints it; "" if none
};

/// The trial table's rows in the dumped DOM, by trial number.
std::map<int, table_row> table_rows(const std::string& dom) {
  static const std::regex row(
    R"re(<tr class="trial [a-z]+" data-trial="(\d+)" data-status="([a-z]+)"(?: data-tflops="([^"]+)")?>)re");
  std::map<int, table_row> rows;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), row); it != std::sregex_iterator();
       ++it)
    rows[std::stoi((*it)[1])] = {(*it)[2], (*it)[3]};
  return rows;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

/// What JavaScript's String(number) prints for a double: the shortest text
/// that reads back as the same number. The test reads it back and compares.
double read_number(const std::string& text) {
  return std::stod(text);
}

/// The y axis's tick labels of the chart `id` in a dumped DOM, in order.
std::vector<double> y_ticks_of(const std::string& dom, const std::string& id) {
  const auto start = dom.find("<svg id=\"" + id + "\"");
  if (start == std::string::npos)
    return {};
  const auto axis = dom.find("<g class=\"axis y\"", start);
  const auto end = dom.find("</g>", axis);
  static const std::regex label(R"re(class="tick-label"[^>]*>([-0-9.]+)</text>)re");
  std::vector<double> out;
  const auto part = dom.substr(axis, end - axis);
  for (auto it = std::sregex_iterator(part.begin(), part.end(), label);
       it != std::sregex_iterator(); ++it)
    out.push_back(std::stod((*it)[1]));
  return out;
}

struct dashboard_chromium : ::testing::Test {
  /// One real tuning session for every test: GPT3-7B on 16 simulated A100s
  /// meets an injected NCCL timeout at its trial 7 (seed 1 of the example).
  static void SetUpTestSuite() {
    run_dir = test::make_temp_dir("dashboard-chromium");
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    // The example with every trial of its budget run (`stop: budget`): the
    // session stop would end it before trial 7's failure.
    std::ifstream example(test::source_dir() + "/configs/examples/gpt3-7b-a100x16.yaml");
    std::stringstream job;
    job << example.rdbuf() << "stop: budget\n";
    const auto job_path = run_dir + "/gpt3-7b-a100x16.yaml";
    std::ofstream(job_path) << job.str();
    const auto r = test::run_program({test::bin_dir() + "/paratune", "tune", job_path, "--db",
                                      run_dir + "/pool", "--trials", "7", "--json"});
    tune_status = r.status;
    tune_output = r.status == 0 ? r.out : r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(run_dir); }

  void SetUp() override {
    if (access(chromium, X_OK) != 0)
      GTEST_SKIP() << chromium << " is not installed (tools/quickstart installs it)";
    ASSERT_EQ(tune_status, 0) << tune_output;
    session = nlohmann::json::parse(tune_output)["session"];
    dir = test::make_temp_dir("dashboard-page");
  }
  void TearDown() override {
    if (!dir.empty())
      fs::remove_all(dir);
  }

  /// Chromium's DOM of `url` after 8 s of virtual time (timers and fetches
  /// run; the clock only waits on the network).
  std::string dump_dom(const std::string& url) {
    const auto r = test::run_program({"/usr/bin/timeout", "120", chromium, "--headless",
                                      "--no-sandbox", "--disable-gpu",
                                      "--user-data-dir=" + dir + "/chromium",
                                      "--virtual-time-budget=8000", "--dump-dom", url});
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }

  static inline std::string run_dir, tune_output;
  static inline int tune_status = -1;
  std::string session, dir;
};

TEST_F(dashboard_chromium, the_session_page_shows_each_trial_the_chart_and_the_failure) {
  auto opened = message_pool::open(run_dir + "/pool");
  ASSERT_TRUE(opened) << describe(opened.error());
  std::shared_ptr<const message_pool> pool = std::move(*opened);
  std::map<int, wire::trial_result> results;
  std::vector<wire::failure_diagnosis> diagnoses;
  const auto history = pool->session_history(session);
  ASSERT_TRUE(history);
  for (const auto& e : *history) {
    if (e.type == wire::type_name<wire::trial_result>())
      results[e.trial] = wire::body_of<wire::trial_result>(e);
    else if (e.type == wire::type_name<wire::failure_diagnosis>())
      diagnoses.push_back(wire::body_of<wire::failure_diagnosis>(e));
  }
  ASSERT_EQ(results.size(), 7u);
  ASSERT_EQ(results[7].status, trial_status::failed);
  ASSERT_EQ(diagnoses.size(), 1u);

  dashboard_server server(pool);
  ASSERT_TRUE(server.start());
  const auto base = "http://127.0.0.1:" + std::to_string(server.port());
  const auto dom = dump_dom(base + "/session/" + session);

  const auto rows = table_rows(dom);
  ASSERT_EQ(rows.size(), 7u) << dom;
  int measured = 0;
  for (const auto& [trial, r] : results) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_EQ(rows.count(trial), 1u);
    EXPECT_EQ(rows.at(trial).status, to_string(r.status));
    if (r.status == trial_status::succeeded) {
      ++measured;
      ASSERT_FALSE(rows.at(trial).tflops.empty());
      EXPECT_EQ(read_number(rows.at(trial).tflops), r.tflops_per_gpu);  // exactly the pool's
    } else {
      EXPECT_EQ(rows.at(trial).tflops, "");
    }
  }
  EXPECT_EQ(measured, 6);
  // The charts, fetched and placed by the script: the report's six (no
  // trial runs: no live line); a point per measured trial in each
  // per-trial chart (throughput and MFU), the failure marked in both.
  EXPECT_EQ(count_of(dom, "<svg"), 6u);
  EXPECT_EQ(count_of(dom, "class=\"point measured\""), size_t(2 * measured));
  EXPECT_EQ(count_of(dom, "class=\"marker failed\" data-trial=\"7\""), 2u);
  // One parallel-coordinates line per measured trial.
  EXPECT_EQ(count_of(dom, "<polyline class=\"pc-line"), size_t(measured));
  // The page opens on the answer: above the charts and the trial table.
  const auto answer = dom.find("<section id=\"answer\"");
  ASSERT_NE(answer, std::string::npos) << dom;
  EXPECT_LT(answer, dom.find("<svg"));
  EXPECT_LT(answer, dom.find("<table id=\"trials\""));
  double best_mfu = 0, best = 0, lo_mfu = 100, hi_mfu = 0;
  for (const auto& [trial, r] : results)
    if (r.status == trial_status::succeeded) {
      lo_mfu = std::min(lo_mfu, 100 * r.mfu);
      hi_mfu = std::max(hi_mfu, 100 * r.mfu);
      if (r.tflops_per_gpu > best) {  // the summary's best: the first highest
        best = r.tflops_per_gpu;
        best_mfu = 100 * r.mfu;
      }
    }
  char mfu_text[32];
  std::snprintf(mfu_text, sizeof mfu_text, "%.1f%%", best_mfu);
  EXPECT_NE(dom.find("<dd data-figure=\"mfu\">" + std::string(mfu_text) + "</dd>"),
            std::string::npos) << mfu_text;
  EXPECT_NE(dom.find("<pre class=\"command\">"), std::string::npos);
  // The MFU axis is fitted to the measured 'lo_mfu'..'hi_mfu' %, not 0..100.
  const auto ticks = y_ticks_of(dom, "mfu-chart");
  ASSERT_GE(ticks.size(), 2u) << dom;
  EXPECT_LE(ticks.front(), lo_mfu);
  EXPECT_GE(ticks.back(), hi_mfu);
  EXPECT_FALSE(ticks.front() == 0 && ticks.back() == 100);
  EXPECT_GT(ticks.front(), 0);
  // A column per configuration key whose value differs between trials,
  // the change from the parent under each trial number.
  std::map<std::string, std::set<std::string>> values;
  for (const auto& [trial, r] : results)
    for (const auto& [k, v] : r.config)
      values[k].insert(v);
  int varied = 0;
  for (const auto& [k, vs] : values)
    if (vs.size() > 1) {
      ++varied;
      EXPECT_NE(dom.find("<th>" + k + "</th>"), std::string::npos) << k;
    }
  EXPECT_GE(varied, 1);
  EXPECT_GE(count_of(dom, "<div class=\"change\">"), 6u);
  // The table was filled: the loading row is gone, MFU in percent.
  EXPECT_EQ(dom.find("Loading the trials"), std::string::npos);
  EXPECT_NE(dom.find("<th class=\"number\">MFU (%)</th>"), std::string::npos);
  // The failure: its diagnosis and the error it printed.
  EXPECT_NE(dom.find("<p class=\"note diagnosis\">Diagnosis: " + diagnoses[0].summary + "</p>"),
            std::string::npos) << dom;
  EXPECT_NE(dom.find("<section class=\"trial-notes\" id=\"trial-7\">"), std::string::npos);
  EXPECT_NE(dom.find("data-refreshes=\"1\""), std::string::npos);  // it ended: no more polls
  EXPECT_NE(dom.find("<dd id=\"state\">finished</dd>"), std::string::npos);
  EXPECT_NE(dom.find("The session has ended (finished)."), std::string::npos);

  // The sessions page lists it, with its job.
  const auto list = dump_dom(base + "/");
  EXPECT_NE(list.find("<a href=\"/session/" + session + "\">" + session + "</a>"),
            std::string::npos) << list;
  EXPECT_NE(list.find("<td>gpt3-7b-a100x16</td>"), std::string::npos) << list;
  EXPECT_NE(list.find("<td class=\"number\">7/7</td>"), std::string::npos) << list;
}

// The page of a running session polls: it opens with two results, the
// third is appended to the pool after the page's first fetch, and the
// dumped DOM shows three. The records are the real session's, with a job
// name that would run as a script if it were not escaped.
TEST_F(dashboard_chromium, a_running_sessions_page_shows_results_appended_while_it_is_open) {
  std::vector<wire::envelope> history;
  {
    auto real = message_pool::open(run_dir + "/pool");
    ASSERT_TRUE(real) << describe(real.error());
    history = *(*real)->session_history(session);
  }
  auto opened = message_pool::open(dir + "/pool");
  ASSERT_TRUE(opened);
  std::shared_ptr<message_pool> pool = std::move(*opened);
  std::optional<wire::envelope> third;
  for (auto e : history) {
    if (e.type == wire::type_name<wire::trial_result>() && e.trial == 3) {
      third = e;
      break;
    }
    if (e.type == wire::type_name<wire::session_opened>()) {
      auto job = wire::body_of<wire::session_opened>(e);
      job.job_name = test::hostile_job;
      e.body = wire::pack(job);
    }
    e.seq = 0;
    ASSERT_TRUE(pool->append(e));
  }
  ASSERT_TRUE(third);
  const auto third_result = wire::body_of<wire::trial_result>(*third);

  const auto api = "/api/sessions/" + session;
  std::atomic<int> fetches{0};
  dashboard_options options;
  options.on_request = [&](const dashboard_request& r) {
    // The test appends, the dashboard only reads: once the page has its
    // first answer, the third result arrives.
    if (r.method == "GET" && r.path == api && fetches++ == 0) {
      third->seq = 0;
      EXPECT_TRUE(pool->append(*third));
    }
  };
  dashboard_server server(pool, options);
  ASSERT_TRUE(server.start());
  const auto dom = dump_dom("http://127.0.0.1:" + std::to_string(server.port()) + "/session/" + session);

  const auto rows = table_rows(dom);
  ASSERT_EQ(rows.size(), 3u) << dom;
  for (int trial = 1; trial <= 3; ++trial)
    EXPECT_EQ(rows.at(trial).status, "succeeded") << trial;
  EXPECT_EQ(read_number(rows.at(3).tflops), third_result.tflops_per_gpu);
  EXPECT_EQ(count_of(dom, "class=\"point measured\""), 6u);  // throughput and MFU charts
  EXPECT_GE(fetches.load(), 2);
  EXPECT_NE(dom.find("<dd id=\"state\">running</dd>"), std::string::npos);
  EXPECT_NE(dom.find("<dd id=\"done\">3/7</dd>"), std::string::npos) << dom;
  // The job name is text in the page, not an element.
  EXPECT_NE(dom.find("<dd id=\"job\">&lt;script&gt;alert(1)&lt;/script&gt;</dd>"),
            std::string::npos) << dom;
  EXPECT_EQ(dom.find("<script>alert(1)"), std::string::npos);
}

// A running trial's live line: the telemetry agent's stored TFLOP/s series
// of a trial that has started and not ended is drawn, one polyline with
// a point per logged iteration.
TEST_F(dashboard_chromium, a_running_trial_has_a_live_throughput_line) {
  auto opened = message_pool::open(dir + "/pool");
  ASSERT_TRUE(opened);
  std::shared_ptr<message_pool> pool = std::move(*opened);
  {
    auto real = message_pool::open(run_dir + "/pool");
    ASSERT_TRUE(real) << describe(real.error());
    const auto history = (*real)->session_history(session);
    ASSERT_TRUE(history);
    for (auto e : *history) {
      if (e.type == wire::type_name<wire::trial_result>() && e.trial == 3)
        break;  // trial 3 started and has not ended
      e.seq = 0;
      ASSERT_TRUE(pool->append(e));
    }
  }
  wire::metric_series series;
  series.trial = 3;
  series.metric = trial_metric::tflops_per_gpu;
  series.gpu = -1;
  for (int i = 0; i < 5; ++i)
    series.points.push_back({1000 + i, 150.0 + 2 * i});
  ASSERT_TRUE(pool->append(wire::make_envelope(session, 3, series)));
  dashboard_server server(pool);
  ASSERT_TRUE(server.start());
  const auto dom = dump_dom("http://127.0.0.1:" + std::to_string(server.port()) + "/session/" + session);
  EXPECT_EQ(count_of(dom, "<svg id=\"live-chart\""), 1u) << dom;
  EXPECT_EQ(count_of(dom, "<polyline class=\"live-line\" data-trial=\"3\" data-points=\"5\" "
                          "data-last=\"158.00\""), 1u) << dom;
  const auto ticks = y_ticks_of(dom, "live-chart");
  ASSERT_GE(ticks.size(), 2u);
  EXPECT_LE(ticks.front(), 150);
  EXPECT_GE(ticks.back(), 158);
  EXPECT_GT(ticks.front(), 100);  // fitted, not from 0
}

TEST_F(dashboard_chromium, a_tpu_session_is_listed_and_its_page_shows_every_run) {
  // A real TPU session: MaxText's loop on the simulated v6e-16 slice.
  const auto exp = test::source_dir() + "/tests/fixtures/asap/v6e-16-hbm/experiment.yaml";
  const auto tuned = test::run_program({test::bin_dir() + "/paratune", "tune", exp, "--trials",
                                        "4", "--json", "--db", dir + "/tpu-pool"});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const auto report = nlohmann::json::parse(tuned.out);
  const auto id = report["session"].get<std::string>();
  ASSERT_EQ(report["trials"].size(), 4u) << tuned.out;

  auto opened = message_pool::open(dir + "/tpu-pool");
  ASSERT_TRUE(opened) << describe(opened.error());
  dashboard_server server(std::shared_ptr<const message_pool>(std::move(*opened)));
  ASSERT_TRUE(server.start());
  const auto base = "http://127.0.0.1:" + std::to_string(server.port());

  const auto index = dump_dom(base + "/");
  EXPECT_EQ(count_of(index, "<tr class=\"session tpu\" data-session=\"" + id + "\">"), 1u)
    << index;
  EXPECT_EQ(count_of(index, "<td class=\"state\">finished</td>"), 1u) << index;

  const auto dom = dump_dom(base + "/session/" + id);
  std::set<int> rows;
  static const std::regex row(R"re(<tr data-trial="(\d+)">)re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), row); it != std::sregex_iterator();
       ++it)
    rows.insert(std::stoi((*it)[1]));
  EXPECT_EQ(rows, (std::set<int>{1, 2, 3, 4})) << dom;
  EXPECT_NE(dom.find("<dd id=\"state\">finished</dd>"), std::string::npos) << dom;
  EXPECT_NE(dom.find("<dd id=\"done\">4/"), std::string::npos) << dom;
  // The answer is the one tune printed: the same mesh, step time and MFU.
  const auto& best = report["best"];
  ASSERT_GT(best["mfu"].get<double>(), 0) << best.dump();
  EXPECT_NE(dom.find("<b>Best mesh:</b> <code>" + best["mesh"].get<std::string>() + "</code>, "
                     + fixed(best["step_time_ms"].get<double>(), 1) + " ms per step, MFU "
                     + mfu_text(best["mfu"].get<double>()) + " (trial "
                     + std::to_string(best["trial"].get<int>()) + ")"),
            std::string::npos)
    << dom;
  // A finished session's page has no script to run.
  EXPECT_EQ(count_of(dom, "<script"), 0u) << dom;
}

} // namespace
} // namespace paratune
