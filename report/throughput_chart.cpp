// Predicted against measured throughput: how far the performance model's
// prediction for each proposal was from what the trial then measured.
#include <algorithm>

#include <fmt/format.h>

#include "report/chart_points.hpp"
#include "report/charts.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

namespace {

std::string point_at(double x, double y, const throughput_chart_data::point& p) {
  return fmt::format("<circle class=\"point predicted\" data-trial=\"{}\" data-predicted=\"{}\" "
                     "data-measured=\"{}\" cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"/>\n",
                     p.trial, fixed(p.predicted, 2), fixed(p.measured, 2), fixed(x), fixed(y),
                     chart_colour::predicted);
}

} // namespace

std::string throughput_chart_svg(const session_summary& s, int width, int height) {
  const auto d = throughput_chart_points(s);
  chart_frame f;
  f.width = width;
  f.height = height;
  // One scale for both axes, fitted to the data, so the y = x line is the
  // diagonal of equal values and the points spread over the plot.
  plot_range values;
  for (const auto& p : d.points) {
    values.add(p.predicted);
    values.add(p.measured);
  }
  const auto t = values.ticks();
  std::string out;
  const auto [x, y] = open_xy_chart(out, f, "throughput-chart",
                                    "Predicted against measured throughput", t,
                                    "predicted TFLOP/s per GPU", t, "measured TFLOP/s per GPU");
  out += fmt::format("<line class=\"identity\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                     "stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
                     fixed(x(t.bottom)), fixed(y(t.bottom)), fixed(x(t.top)), fixed(y(t.top)),
                     chart_colour::identity);
  for (const auto& p : d.points) {
    out += point_at(x(p.predicted), y(p.measured), p);
    out += point_label(x(p.predicted), y(p.measured), p.trial);
  }
  if (d.points.empty()) {
    plot_note(out, f, "no measured trial with a prediction");
  } else {
    legend(out, f,
           {{fmt::format("<circle class=\"swatch\" r=\"5\" fill=\"{}\"/>", chart_colour::predicted),
             "trial"},
            {fmt::format("<line class=\"swatch\" x1=\"-7\" y1=\"0\" x2=\"7\" y2=\"0\" "
                         "stroke=\"{}\" stroke-dasharray=\"4 3\"/>",
                         chart_colour::identity),
             "y = x"}});
  }
  close_svg(out);
  return out;
}

} // namespace paratune
