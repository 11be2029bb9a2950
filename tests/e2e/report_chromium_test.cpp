// The HTML report as a browser shows it: headless Chromium renders it to a
// PNG, and the charts' own colours are counted in the pixels; its DOM dump
// holds the two SVG charts and one point per measured trial.

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
                                     "--window-size=1000,2400"};
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

// Measured on this page (Chromium 1000x2400, device scale 1, exact colour
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
  ASSERT_EQ(image.height, 2400);
  const int blue = test::count_pixels(image, test::colour_of(chart_colour::measured), 2);
  const int red = test::count_pixels(image, test::colour_of(chart_colour::failed), 2);
  std::cout << "measured " << measured << " points: " << blue << " px; failed " << failed
            << " marks: " << red << " px\n";
  EXPECT_GE(blue, point_pixels * (measured + 1));  // the points and the legend's swatch
  EXPECT_GE(red, cross_pixels * failed);

  const auto dom = browse({"--dump-dom"}, html);
  ASSERT_EQ(dom.status, 0) << dom.err;
  EXPECT_EQ(page_count_of(dom.out, "<svg "), 2);
  EXPECT_EQ(page_count_of(dom.out, "class=\"point measured\""), measured);
  EXPECT_EQ(page_count_of(dom.out, "class=\"marker failed\""), failed);
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
  EXPECT_EQ(page_count_of(dom.out, "<svg "), 2);
  EXPECT_EQ(page_count_of(dom.out, "class=\"point measured\""), 0);
  EXPECT_NE(dom.out.find(">no measured trial</text>"), std::string::npos);
}

} // namespace
} // namespace paratune
