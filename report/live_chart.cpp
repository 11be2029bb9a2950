// A running trial's throughput, iteration by iteration, as its telemetry
// records arrive: the dashboard's live line.
#include <algorithm>

#include <fmt/format.h>

#include "report/charts.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

std::string live_chart_svg(const live_series& series, int width, int height) {
  chart_frame f;
  f.width = width;
  f.height = height;
  size_t longest = 0;
  plot_range range;
  for (const auto& [_, values] : series) {
    longest = std::max(longest, values.size());
    for (double v : values)
      range.add(v);
  }
  const auto yt = range.ticks();
  const auto xt = nice_ticks(1, double(std::max<size_t>(longest, 2)), 8);
  std::string out;
  const auto [x, y] = open_xy_chart(out, f, "live-chart", "Running trials: throughput per iteration",
                                    xt, "iteration logged", yt, "TFLOP/s per GPU");
  for (const auto& [trial, values] : series) {
    if (values.empty())
      continue;
    std::string points;
    for (size_t i = 0; i < values.size(); ++i)
      points += (i ? " " : "") + fixed(x(double(i + 1))) + "," + fixed(y(values[i]));
    out += fmt::format("<polyline class=\"live-line\" data-trial=\"{}\" data-points=\"{}\" "
                       "data-last=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
                       "stroke-width=\"2\"/>\n",
                       trial, values.size(), fixed(values.back(), 2), points, chart_colour::live);
    out += fmt::format("<text class=\"point-label\" data-trial=\"{0}\" x=\"{1}\" y=\"{2}\" "
                       "font-size=\"11\" fill=\"#333333\">trial {0}</text>\n",
                       trial, fixed(x(double(values.size())) + 4), fixed(y(values.back()) - 6));
  }
  if (!range.any)
    plot_note(out, f, "no running trial has logged an iteration yet");
  close_svg(out);
  return out;
}

std::vector<named_chart> report_charts(const session_summary& s) {
  return {{"trials", "Throughput per trial", trials_chart_svg(s)},
          {"mfu", "MFU per trial", mfu_chart_svg(s)},
          {"parallel", "Parallel coordinates of the keys that varied", parallel_chart_svg(s)},
          {"memory", "Throughput against peak memory", memory_chart_svg(s)},
          {"throughput", "Predicted against measured throughput", throughput_chart_svg(s)},
          {"importance", "Parameter importance", importance_chart_svg(s)}};
}

} // namespace paratune
