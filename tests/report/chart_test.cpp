#include <string>

#include <gtest/gtest.h>

#include "report/chart_points.hpp"
#include "report/charts.hpp"
#include "tests/report/sample_summary.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {
namespace {

TEST(MfuChartPoints, MeasuredFailedStoppedAndBestSoFar) {
  const auto d = mfu_chart_points(test::sample_summary());
  EXPECT_EQ(d.last_trial, 6);
  ASSERT_EQ(d.measured.size(), 3u);
  EXPECT_EQ(d.measured[0].trial, 1);
  EXPECT_DOUBLE_EQ(d.measured[0].value, 30);
  EXPECT_EQ(d.measured[1].trial, 3);
  EXPECT_DOUBLE_EQ(d.measured[1].value, 35);
  EXPECT_EQ(d.measured[2].trial, 4);
  EXPECT_DOUBLE_EQ(d.measured[2].value, 32);
  EXPECT_EQ(d.failed, std::vector<int>{2});
  EXPECT_EQ(d.stopped, (std::vector<int>{3, 5}));
  ASSERT_EQ(d.best_so_far.size(), 6u);
  const double expected[] = {30, 30, 35, 35, 35, 35};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(d.best_so_far[i].trial, i + 1);
    EXPECT_DOUBLE_EQ(d.best_so_far[i].value, expected[i]);
  }
}

TEST(MfuChartSvg, OneElementPerPointAndMarker) {
  const auto svg = mfu_chart_svg(test::sample_summary());
  EXPECT_EQ(test::occurrences(svg, "class=\"point measured\""), 3);
  EXPECT_EQ(test::occurrences(svg, "class=\"marker failed\""), 1);
  EXPECT_EQ(test::occurrences(svg, "class=\"marker stopped\""), 2);
  EXPECT_EQ(test::occurrences(svg, "class=\"best-so-far\""), 1);
  EXPECT_EQ(test::occurrences(svg, "class=\"note\""), 0);
  EXPECT_NE(svg.find("data-trial=\"3\" data-mfu-pct=\"35.00\""), std::string::npos);
  EXPECT_NE(svg.find(">MFU per trial</text>"), std::string::npos);
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
}

TEST(MfuChartSvg, GeometryOfTheDefaultFrame) {
  // x: trials 0.5..6.5 over 64..696 px; y fitted to the data, 30..35 % with
  // 5% margins: 28..36 % (ticks of 2) over 268..40 px. Trial 1 at 30 %:
  // x = 64 + 0.5 * 632 / 6, y = 268 - (30 - 28) * 228 / 8.
  const auto svg = mfu_chart_svg(test::sample_summary());
  EXPECT_NE(svg.find("data-trial=\"1\" data-mfu-pct=\"30.00\" cx=\"116.7\" cy=\"211.0\""),
            std::string::npos);
  // The step line starts at trial 1 and climbs once, at trial 3, to 35 %.
  EXPECT_NE(svg.find("d=\"M116.7 211.0 H222.0 H327.3 V68.5 H432.7 H538.0 H643.3\""),
            std::string::npos);
  EXPECT_NE(svg.find(">28</text>"), std::string::npos);
  EXPECT_NE(svg.find(">36</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">0</text>"), std::string::npos);
}

TEST(MfuChartSvg, SameInputSameBytes) {
  EXPECT_EQ(mfu_chart_svg(test::sample_summary()), mfu_chart_svg(test::sample_summary()));
  EXPECT_EQ(throughput_chart_svg(test::sample_summary()),
            throughput_chart_svg(test::sample_summary()));
}

TEST(MfuChartSvg, NoTrialsGivesAnEmptyChartWithANote) {
  session_summary s;
  const auto svg = mfu_chart_svg(s);
  EXPECT_EQ(test::occurrences(svg, "class=\"point"), 0);
  EXPECT_EQ(test::occurrences(svg, "class=\"best-so-far\""), 0);
  EXPECT_NE(svg.find(">no measured trial</text>"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find(chart_colour::measured), std::string::npos);
}

TEST(MfuChartSvg, OneTrial) {
  session_summary s;
  s.trials = {test::sample_row(1, trial_status::succeeded, 0.5, 150)};
  const auto svg = mfu_chart_svg(s);
  EXPECT_EQ(test::occurrences(svg, "class=\"point measured\""), 1);
  // A single best-so-far step is just its start.
  EXPECT_NE(svg.find("class=\"best-so-far\" d=\"M380.0 "), std::string::npos);
}

TEST(MfuChartSvg, AllFailedHasMarkersButNoPoints) {
  session_summary s;
  s.trials = {test::sample_row(1, trial_status::failed, 0, 0),
              test::sample_row(2, trial_status::failed, 0, 0)};
  const auto svg = mfu_chart_svg(s);
  EXPECT_EQ(test::occurrences(svg, "class=\"point"), 0);
  EXPECT_EQ(test::occurrences(svg, "class=\"marker failed\""), 2);
  EXPECT_NE(svg.find(">no measured trial</text>"), std::string::npos);
  EXPECT_EQ(svg.find(chart_colour::measured), std::string::npos);
}

TEST(ThroughputChart, OnlyTrialsWithAPredictionAndAMeasurement) {
  const auto d = throughput_chart_points(test::sample_summary());
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_EQ(d.points[0].trial, 1);
  EXPECT_DOUBLE_EQ(d.points[0].predicted, 140);
  EXPECT_DOUBLE_EQ(d.points[0].measured, 130);
  EXPECT_EQ(d.points[1].trial, 4);
  const auto svg = throughput_chart_svg(test::sample_summary());
  EXPECT_EQ(test::occurrences(svg, "class=\"point predicted\""), 2);
  EXPECT_EQ(test::occurrences(svg, "class=\"identity\""), 1);
  EXPECT_EQ(test::occurrences(svg, "class=\"point-label\""), 2);
  EXPECT_NE(svg.find(">125</text>"), std::string::npos);
  EXPECT_NE(svg.find(">155</text>"), std::string::npos);
  // Both axes fitted to 130..150: 125..155 (ticks of 5): y = x is the diagonal.
  EXPECT_NE(svg.find("class=\"identity\" x1=\"64.0\" y1=\"268.0\" x2=\"696.0\" y2=\"40.0\""),
            std::string::npos);
}

TEST(ThroughputChart, NoPredictionGivesANote) {
  session_summary s;
  s.trials = {test::sample_row(1, trial_status::succeeded, 0.5, 150)};
  const auto svg = throughput_chart_svg(s);
  EXPECT_EQ(test::occurrences(svg, "class=\"point"), 0);
  EXPECT_NE(svg.find(">no measured trial with a prediction</text>"), std::string::npos);
}

TEST(ChartsJson, HoldsWhatTheChartsPlot) {
  const auto j = charts_json(test::sample_summary());
  EXPECT_EQ(j["mfu"]["measured"].size(), 3u);
  EXPECT_EQ(j["mfu"]["best_so_far"][2]["mfu_pct"].get<double>(), 35);
  EXPECT_EQ(j["mfu"]["failed"], nlohmann::json::array({2}));
  EXPECT_EQ(j["mfu"]["stopped"], nlohmann::json::array({3, 5}));
  EXPECT_EQ(j["throughput"]["points"][1]["predicted_tflops"].get<double>(), 150);
}

TEST(SvgCanvas, NiceTicksAndFixedNumbers) {
  const auto t = nice_ticks(0, 37.8, 5);
  EXPECT_DOUBLE_EQ(t.step, 10);
  EXPECT_DOUBLE_EQ(t.top, 40);
  EXPECT_EQ(t.values.size(), 5u);
  EXPECT_EQ(nice_ticks(0, 0.9, 5).decimals, 1);
  EXPECT_EQ(fixed(-0.01), "0.0");
  EXPECT_EQ(fixed(2.376, 2), "2.38");
  EXPECT_EQ(markup_escape("<a href=\"x\">O'Neil & co</a>"),
            "&lt;a href=&quot;x&quot;&gt;O&#39;Neil &amp; co&lt;/a&gt;");
}

} // namespace
} // namespace paratune
