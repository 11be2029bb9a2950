// Parallel coordinates: one vertical axis per configuration key that varied
// across the session, a last one for the measured TFLOP/s per GPU, and one
// line per measured trial through its values, the best one highlighted.
#include <algorithm>

#include <fmt/format.h>

#include "report/chart_points.hpp"
#include "report/charts.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

namespace {

// The key's name above its axis, its levels beside it.
// Every other key's name one line higher, so that long names do not overlap.
void pc_key_axis(std::string& out, const chart_frame& f, double px,
                 const parallel_chart_data::axis& a, const linear_scale& level_y, bool raised) {
  out += fmt::format("<g class=\"pc-axis\" data-key=\"{}\">\n", markup_escape(a.key));
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#444444\"/>\n",
                     fixed(px), fixed(f.plot_top()), fixed(f.plot_bottom()));
  out += fmt::format("<text class=\"pc-key\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
                     "font-weight=\"bold\" fill=\"#222222\">{}</text>\n",
                     fixed(px), fixed(f.plot_top() - (raised ? 26 : 10)), markup_escape(a.key));
  for (size_t i = 0; i < a.levels.size(); ++i)
    out += fmt::format("<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
                       "fill=\"#444444\">{}</text>\n",
                       fixed(px - 6), fixed(level_y(double(i)) + 4), markup_escape(a.levels[i]));
  out += "</g>\n";
}

void pc_value_axis(std::string& out, const chart_frame& f, double px, const axis_ticks& t,
                   const linear_scale& y, bool raised) {
  out += "<g class=\"pc-axis\" data-key=\"TFLOP/s/GPU\">\n";
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#444444\"/>\n",
                     fixed(px), fixed(f.plot_top()), fixed(f.plot_bottom()));
  out += fmt::format("<text class=\"pc-key\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
                     "font-weight=\"bold\" fill=\"#222222\">TFLOP/s/GPU</text>\n",
                     fixed(px), fixed(f.plot_top() - (raised ? 26 : 10)));
  for (double v : t.values)
    out += fmt::format("<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"start\" "
                       "fill=\"#444444\">{}</text>\n",
                       fixed(px + 6), fixed(y(v) + 4), fixed(v, t.decimals));
  out += "</g>\n";
}

} // namespace

std::string parallel_chart_svg(const session_summary& s, int width, int height) {
  const auto d = parallel_chart_points(s);
  chart_frame f;
  f.width = width;
  f.height = height;
  f.top = 84;
  f.left = 48;
  f.right = 64;
  f.bottom = 24;
  std::string out;
  open_svg(out, f, "parallel-chart", "Parallel coordinates of the keys that varied");
  if (d.lines.empty() || d.axes.empty()) {
    plot_note(out, f, d.lines.empty() ? "no measured trial" : "no key varied across the trials");
    close_svg(out);
    return out;
  }
  const size_t n_axes = d.axes.size() + 1;
  const auto axis_x = [&](size_t i) {
    return f.plot_left() + (f.plot_right() - f.plot_left()) * double(i) / double(n_axes - 1);
  };
  const auto t = data_ticks(d.min_tflops, d.max_tflops, 5);
  const linear_scale value_y{t.bottom, t.top, f.plot_bottom(), f.plot_top()};
  std::vector<linear_scale> level_y;
  for (const auto& a : d.axes) {
    // Levels spread over the axis; a single level sits in the middle.
    const double pad = 0.5;
    level_y.push_back({-pad, double(a.levels.size()) - 1 + pad, f.plot_bottom(), f.plot_top()});
  }
  for (size_t i = 0; i < d.axes.size(); ++i)
    pc_key_axis(out, f, axis_x(i), d.axes[i], level_y[i], i % 2 == 1);
  pc_value_axis(out, f, axis_x(n_axes - 1), t, value_y, (n_axes - 1) % 2 == 1);

  // The best last, so that it is drawn over the others.
  std::vector<const parallel_chart_data::line*> order;
  for (const auto& l : d.lines)
    order.push_back(&l);
  const auto* best = *std::max_element(order.begin(), order.end(),
                                       [](auto* a, auto* b) { return a->tflops < b->tflops; });
  std::stable_partition(order.begin(), order.end(), [&](auto* l) { return l != best; });
  for (const auto* l : order) {
    std::string points;
    for (size_t i = 0; i < d.axes.size(); ++i)
      points += fixed(axis_x(i)) + "," + fixed(level_y[i](l->level[i])) + " ";
    points += fixed(axis_x(n_axes - 1)) + "," + fixed(value_y(l->tflops));
    const bool is_best = l == best;
    out += fmt::format("<polyline class=\"pc-line{}\" data-trial=\"{}\" data-tflops=\"{}\" "
                       "points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" "
                       "stroke-opacity=\"{}\"/>\n",
                       is_best ? " best" : "", l->trial, fixed(l->tflops, 2), points,
                       is_best ? chart_colour::best_so_far : chart_colour::measured,
                       is_best ? "3" : "1.5", is_best ? "1" : "0.6");
  }
  chart_frame legend_row = f;  // above the keys' names, beside the title
  legend_row.top = 40;
  legend(out, legend_row,
         {{fmt::format("<line class=\"swatch\" x1=\"-7\" y1=\"0\" x2=\"7\" y2=\"0\" stroke=\"{}\" "
                       "stroke-width=\"1.5\"/>",
                       chart_colour::measured),
           "measured trial"},
          {fmt::format("<line class=\"swatch\" x1=\"-7\" y1=\"0\" x2=\"7\" y2=\"0\" stroke=\"{}\" "
                       "stroke-width=\"3\"/>",
                       chart_colour::best_so_far),
           "best"}});
  close_svg(out);
  return out;
}

} // namespace paratune
