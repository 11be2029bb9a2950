// The HTML report as a browser shows it: headless Chromium renders it to a
// PNG, and the charts' own colours are counted in the pixels; its DOM dump
// holds the six SVG charts, their axes fitted to the data, their labels,
// and one point or line per measured trial.

#include <filesystem>
#include <fstream>
#include <iostream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/charts.hpp"
#include "tests/e2e/png_image.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

constexpr const char* chromium = "/usr/bin/chromium";

std::string read_page(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int page_count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Every simulated run carries an injected failure at a random iteration;
// with early stopping, the trials stopped before it are measured. Without
// early stopping every trial fails.
std::string page_job_text(bool early_stop) {
  const auto sim = test::bin_dir() + "/paratune-sim";
  return std::string("name: chromium-report\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
                     "precision: fp16\n"
                     "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
                     "trials: 5\nstop: budget\n")
         + (early_stop ? "early_stop: {warmup: 2, stable_after: 5, tolerance: 0.02, rung: true}\n" : "")
         + "pools:\n"
           "  - {name: gpu-box, kind: local, capacity: 1,\n"
           "     launch: [\"" + sim + "\", --sim-cluster, dgx-a100-80g, --sim-world-size,\n"
           "              \"{gpus_per_node}\", --sim-time-scale, \"0\", --sim-failure-rate, \"1\",\n"
           "              --sim-seed, \"{trial}\", \"{megatron_args}\"]}\n";
}

struct report_chromium : ::testing::Test {
  void SetUp() override {
    if (!fs::exists(chromium))
      GTEST_SKIP() << chromium << " is not installed (tools/quickstart installs it)";
    dir = test::make_temp_dir("report-chromium");
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  }
  void TearDown() override {
    if (!dir.empty())
      fs::remove_all(dir);
  }

  // Tunes the job, writes its HTML report; returns tune's JSON.
  nlohmann::json tune_and_report(bool early_stop, const std::string& html) {
    const auto job = test::write_file(dir, "job.yaml", page_job_text(early_stop));
    const auto paratune = test::bin_dir() + "/paratune";
    const auto t = test::run_program({paratune, "tune", job, "--db", dir + "/pool", "--json"});
    EXPECT_EQ(t.status, early_stop ? 0 : 1) << t.err;  // 1: no trial succeeded
    auto tuned = nlohmann::json::parse(t.out);
    const auto r = test::run_program({paratune, "report", tuned["session"].get<std::string>(),
                                      "--db", dir + "/pool", "--format", "html", "-o", html});
    EXPECT_EQ(r.status, 0) << r.err;
    return tuned;
  }

  // Chromium without a shell, bounded by timeout(1), its profile in the test's directory.
  test::program_result browse(const std::vector<std::string>& mode, const std::string& html) {
    std::vector<std::string> argv = {"/usr/bin/timeout", "90", chromium, "--headless",
                                     "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                     "--user-data-dir=" + dir + "/chromium-profile",
                                     "--window-size=1000,4800"};
    argv.insert(argv.end(), mode.begin(), mode.end());
    argv.push_back("file://" + html);
    return test::run_program(argv);
  }

  test::png_image screenshot(const std::string& html) {
    const auto png = dir + "/shot.png";
    const auto r = browse({"--screenshot=" + png}, html);
    EXPECT_EQ(r.status, 0) << r.err;
    std::string error;
    auto image = test::decode_png(read_page(png), error);
    EXPECT_TRUE(image) << error;
    return image.value_or(test::png_image{});
  }

  std::string dir;
};

int page_measured_count(const nlohmann::json& tuned) {
  int n = 0;
  for (const auto& t : tuned["trials"])
    n += (t["status"] == "succeeded" || t["status"] == "stopped") && t["tflops_per_gpu"] > 0;
  return n;
}

int failed_count(const nlohmann::json& tuned) {
  int n = 0;
  for (const auto& t : tuned["trials"])
    n += t["status"] == "failed";
  return n;
}

// Measured on this page (Chromium 1000x4800, device scale 1, exact colour
// within 2 per channel): a filled point (r = 5) is 62 pixels of its colour,
// its anti-aliased rim left out (186 for two points and the legend's
// swatch); a failure's x (two 3 px strokes across 12 px) about 55 (220 for
// three and the smaller swatch). Half of that per mark: every mark must
// have rendered, and a swatch alone is never enough.
constexpr int point_pixels = 31;
constexpr int cross_pixels = 25;

TEST_F(report_chromium, the_charts_render_with_their_points_and_failure_marks) {
  const auto html = dir + "/report.html";
  const auto tuned = tune_and_report(true, html);
  const int measured = page_measured_count(tuned), failed = failed_count(tuned);
  ASSERT_GE(measured, 2) << tuned.dump(1);
  ASSERT_GE(failed, 1) << tuned.dump(1);

  const auto image = screenshot(html);
  ASSERT_EQ(image.width, 1000);
  ASSERT_EQ(image.height, 4800);
  const int blue = test::count_pixels(image, test::colour_of(chart_colour::measured), 2);
  const int red = test::count_pixels(image, test::colour_of(chart_colour::failed), 2);
  std::cout << "measured " << measured << " points: " << blue << " px; failed " << failed
            << " marks: " << red << " px\n";
  // The points and the legend's swatch, in both per-trial charts.
  EXPECT_GE(blue, 2 * point_pixels * (measured + 1));
  EXPECT_GE(red, 2 * cross_pixels * failed);

  const auto dom = browse({"--dump-dom"}, html);
  ASSERT_EQ(dom.status, 0) << dom.err;
  EXPECT_EQ(page_count_of(dom.out, "<svg "), 6);
  EXPECT_EQ(page_count_of(dom.out, "class=\"point measured\""), 2 * measured);
  EXPECT_EQ(page_count_of(dom.out, "class=\"marker failed\""), 2 * failed);
}

/// The tick labels of one axis ("x" or "y") of the chart `id`, in order.
std::vector<double> page_ticks_of(const std::string& dom, const std::string& id,
                                  const std::string& axis) {
  const auto start = dom.find("<svg id=\"" + id + "\"");
  if (start == std::string::npos)
    return {};
  const auto at = dom.find("<g class=\"axis " + axis + "\"", start);
  const auto end = dom.find("</g>", at);
  if (at == std::string::npos || at > dom.find("</svg>", start))
    return {};
  std::vector<double> out;
  const std::string mark = "class=\"tick-label\"";
  for (auto p = dom.find(mark, at); p < end; p = dom.find(mark, p + 1)) {
    const auto open = dom.find('>', p) + 1;
    out.push_back(std::stod(dom.substr(open, dom.find('<', open) - open)));
  }
  return out;
}

// The report opens on the answer; each chart's axes run from the data
// (ticks bracket the measured values, MFU not 0-100), the predicted and
// memory points carry their trial labels, the device memory is drawn,
// and parallel coordinates draw one line per measured trial.
TEST_F(report_chromium, the_answer_leads_and_the_axes_labels_and_lines_follow_the_data) {
  const auto html = dir + "/answer.html";
  const auto tuned = tune_and_report(true, html);
  const int measured = page_measured_count(tuned);
  ASSERT_GE(measured, 2) << tuned.dump(1);
  const auto dom = browse({"--dump-dom"}, html);
  ASSERT_EQ(dom.status, 0) << dom.err;
  const auto& d = dom.out;

  const auto answer = d.find("<section id=\"answer\"");
  ASSERT_NE(answer, std::string::npos) << d;
  EXPECT_LT(answer, d.find("<svg "));
  EXPECT_LT(answer, d.find("<h2>Decisions</h2>"));
  EXPECT_NE(d.find("<dd data-figure=\"gain-over-the-first-run\">"), std::string::npos);
  EXPECT_NE(d.find("--tensor-model-parallel-size"), std::string::npos);

  double lo_mfu = 100, hi_mfu = 0, lo_t = 1e9, hi_t = 0;
  int labelled = 0;
  for (const auto& t : tuned["trials"])
    if ((t["status"] == "succeeded" || t["status"] == "stopped") && t["tflops_per_gpu"] > 0) {
      lo_mfu = std::min(lo_mfu, 100 * t["mfu"].get<double>());
      hi_mfu = std::max(hi_mfu, 100 * t["mfu"].get<double>());
      lo_t = std::min(lo_t, t["tflops_per_gpu"].get<double>());
      hi_t = std::max(hi_t, t["tflops_per_gpu"].get<double>());
      labelled += t["peak_memory_mib"] > 0;
    }
  std::cout << "MFU " << lo_mfu << ".." << hi_mfu << " %, " << lo_t << ".." << hi_t
            << " TFLOP/s/GPU\n";
  const auto mfu = page_ticks_of(d, "mfu-chart", "y");
  ASSERT_GE(mfu.size(), 2u) << d;
  std::cout << "MFU axis " << mfu.front() << ".." << mfu.back() << "\n";
  EXPECT_LE(mfu.front(), lo_mfu);
  EXPECT_GE(mfu.back(), hi_mfu);
  EXPECT_GT(mfu.front(), 0);  // fitted: not 0-100
  EXPECT_FALSE(mfu.front() == 0 && mfu.back() == 100);
  const auto throughput = page_ticks_of(d, "trials-chart", "y");
  ASSERT_GE(throughput.size(), 2u);
  EXPECT_LE(throughput.front(), lo_t);
  EXPECT_GE(throughput.back(), hi_t);
  EXPECT_GT(throughput.front(), 0);

  // One line per measured trial, through an axis per varied key and one for throughput.
  EXPECT_EQ(page_count_of(d, "<polyline class=\"pc-line"), measured);
  EXPECT_EQ(page_count_of(d, "<polyline class=\"pc-line best\""), 1);
  EXPECT_GE(page_count_of(d, "<g class=\"pc-axis\""), 2);

  // Throughput against memory: a labelled point per measured trial with a peak, the limit.
  EXPECT_EQ(page_count_of(d, "class=\"point memory\""), labelled);
  EXPECT_NE(d.find("<line class=\"memory-limit\" data-limit-mib=\"81920\""), std::string::npos);
  EXPECT_NE(d.find(">device memory 80 GiB</text>"), std::string::npos);
  const auto mem_x = page_ticks_of(d, "memory-chart", "x");
  ASSERT_GE(mem_x.size(), 2u);
  EXPECT_GE(mem_x.back(), 80);

  // Predicted against measured: every point labelled with its trial.
  EXPECT_EQ(page_count_of(d, "class=\"point-label\""),
            page_count_of(d, "class=\"point predicted\"") + labelled);
  const auto predicted = page_ticks_of(d, "throughput-chart", "x");
  if (page_count_of(d, "class=\"point predicted\"") > 0) {
    ASSERT_GE(predicted.size(), 2u);
    EXPECT_GT(predicted.front(), 0);
  }

  // Importance says what its numbers are: effect sizes, and shares of one total.
  EXPECT_NE(d.find("effect size: omega squared (one-way ANOVA, bias-corrected)"),
            std::string::npos);
  EXPECT_NE(d.find("the shares add up to 100%"), std::string::npos);
}

TEST_F(report_chromium, a_session_without_a_measured_trial_has_no_point_colour) {
  const auto html = dir + "/failed.html";
  const auto tuned = tune_and_report(false, html);
  ASSERT_EQ(page_measured_count(tuned), 0) << tuned.dump(1);
  const auto image = screenshot(html);
  const int red = test::count_pixels(image, test::colour_of(chart_colour::failed), 2);
  std::cout << "failed " << failed_count(tuned) << " marks: " << red << " px\n";
  EXPECT_EQ(test::count_pixels(image, test::colour_of(chart_colour::measured), 2), 0);
  EXPECT_GE(red, cross_pixels * failed_count(tuned));
  const auto dom = browse({"--dump-dom"}, html);
  EXPECT_EQ(page_count_of(dom.out, "<svg "), 6);
  EXPECT_EQ(page_count_of(dom.out, "class=\"point measured\""), 0);
  EXPECT_EQ(page_count_of(dom.out, "<polyline class=\"pc-line"), 0);
  EXPECT_NE(dom.out.find(">no measured trial</text>"), std::string::npos);
}

} // namespace
} // namespace paratune
