// The MFU-per-trial chart (OptiCo's figure 4): every measured trial, the
// best so far as a step line, failures and early stops marked.
#include <algorithm>

#include <fmt/format.h>

#include "report/chart_points.hpp"
#include "report/charts.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

namespace {

std::string point_at(double x, double y, int trial, double mfu_pct) {
  return fmt::format("<circle class=\"point measured\" data-trial=\"{}\" data-mfu-pct=\"{}\" "
                     "cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"/>\n",
                     trial, fixed(mfu_pct, 2), fixed(x), fixed(y), chart_colour::measured);
}

std::string failed_at(double x, double y, int trial) {
  return fmt::format("<path class=\"marker failed\" data-trial=\"{}\" d=\"M{} {} L{} {} M{} {} "
                     "L{} {}\" stroke=\"{}\" stroke-width=\"3\" fill=\"none\"/>\n",
                     trial, fixed(x - 6), fixed(y - 6), fixed(x + 6), fixed(y + 6), fixed(x - 6),
                     fixed(y + 6), fixed(x + 6), fixed(y - 6), chart_colour::failed);
}

std::string stopped_at(double x, double y, int trial) {
  return fmt::format("<rect class=\"marker stopped\" data-trial=\"{}\" x=\"{}\" y=\"{}\" "
                     "width=\"16\" height=\"16\" stroke=\"{}\" stroke-width=\"2\" fill=\"none\"/>\n",
                     trial, fixed(x - 8), fixed(y - 8), chart_colour::stopped);
}

// Horizontal then vertical segments: the best value holds until a trial beats it.
std::string step_line(const std::vector<mfu_chart_data::point>& best, const linear_scale& x,
                      const linear_scale& y) {
  std::string d = fmt::format("M{} {}", fixed(x(best.front().trial)), fixed(y(best.front().mfu_pct)));
  for (size_t i = 1; i < best.size(); ++i) {
    d += fmt::format(" H{}", fixed(x(best[i].trial)));
    if (best[i].mfu_pct != best[i - 1].mfu_pct)
      d += fmt::format(" V{}", fixed(y(best[i].mfu_pct)));
  }
  return fmt::format("<path class=\"best-so-far\" d=\"{}\" stroke=\"{}\" stroke-width=\"2\" "
                     "fill=\"none\"/>\n",
                     d, chart_colour::best_so_far);
}

std::vector<double> trial_ticks(int last_trial) {
  const auto t = nice_ticks(0, std::max(last_trial, 1), 10);
  const double step = std::max(1.0, t.step);
  std::vector<double> ticks;
  for (double v = 1; v <= std::max(last_trial, 1) + 1e-9; v += step)
    ticks.push_back(v);
  return ticks;
}

// Swatches carry no point or marker class, so counting those counts trials.
std::vector<legend_entry> legend_of(const mfu_chart_data& d) {
  std::vector<legend_entry> entries;
  if (!d.measured.empty()) {
    entries.push_back(
        {fmt::format("<circle class=\"swatch\" r=\"5\" fill=\"{}\"/>", chart_colour::measured),
         "measured"});
    entries.push_back({fmt::format("<line class=\"swatch\" x1=\"-7\" y1=\"0\" x2=\"7\" "
                                   "y2=\"0\" stroke=\"{}\" stroke-width=\"2\"/>",
                                   chart_colour::best_so_far),
                       "best so far"});
  }
  if (!d.failed.empty())
    entries.push_back({fmt::format("<path class=\"swatch\" d=\"M-5 -5 L5 5 M-5 5 L5 -5\" "
                                   "stroke=\"{}\" stroke-width=\"3\"/>",
                                   chart_colour::failed),
                       "failed"});
  if (!d.stopped.empty())
    entries.push_back({fmt::format("<rect class=\"swatch\" x=\"-6\" y=\"-6\" width=\"12\" "
                                   "height=\"12\" stroke=\"{}\" stroke-width=\"2\" "
                                   "fill=\"none\"/>",
                                   chart_colour::stopped),
                       "stopped early"});
  return entries;
}

} // namespace

std::string mfu_chart_svg(const session_summary& s, int width, int height) {
  const auto d = mfu_chart_points(s);
  chart_frame f;
  f.width = width;
  f.height = height;
  double top = 0;
  for (const auto& p : d.measured)
    top = std::max(top, p.mfu_pct);
  const auto yt = nice_ticks(0, top > 0 ? top * 1.08 : 100, 5);
  const linear_scale x{0.5, std::max(d.last_trial, 1) + 0.5, f.plot_left(), f.plot_right()};
  const linear_scale y{0, yt.top, f.plot_bottom(), f.plot_top()};

  std::string out;
  open_svg(out, f, "mfu-chart", "MFU per trial");
  y_axis(out, f, y, yt.values, yt.decimals, "MFU (%)");
  x_axis(out, f, x, trial_ticks(d.last_trial), 0, "trial");
  if (!d.best_so_far.empty())
    out += step_line(d.best_so_far, x, y);
  for (const auto& p : d.measured)
    out += point_at(x(p.trial), y(p.mfu_pct), p.trial, p.mfu_pct);
  for (int t : d.failed)
    out += failed_at(x(t), f.plot_bottom(), t);
  for (int t : d.stopped) {
    const auto it = std::find_if(d.measured.begin(), d.measured.end(),
                                 [t](const auto& p) { return p.trial == t; });
    out += stopped_at(x(t), it != d.measured.end() ? y(it->mfu_pct) : f.plot_bottom(), t);
  }
  if (d.measured.empty())
    plot_note(out, f, "no measured trial");
  legend(out, f, legend_of(d));
  close_svg(out);
  return out;
}

} // namespace paratune
