// The per-trial charts (OptiCo's figure 4): MFU, or TFLOP/s per GPU, of
// every measured trial, the incumbent (best so far) as a step line,
// failures, early stops and cancels marked.
#include <algorithm>

#include <fmt/format.h>

#include "report/chart_points.hpp"
#include "report/charts.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

namespace {

struct per_trial_look {
  const char* id;
  const char* title;
  const char* y_label;
  const char* value_attribute;  ///< data-<this> on each point
};

std::string trial_point_at(double x, double y, int trial, const char* attribute, double value) {
  return fmt::format("<circle class=\"point measured\" data-trial=\"{}\" data-{}=\"{}\" "
                     "cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"/>\n",
                     trial, attribute, fixed(value, 2), fixed(x), fixed(y), chart_colour::measured);
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

std::string cancelled_at(double x, double y, int trial) {
  return fmt::format("<path class=\"marker cancelled\" data-trial=\"{}\" d=\"M{} {} L{} {} L{} {} "
                     "L{} {} Z\" stroke=\"{}\" stroke-width=\"2\" fill=\"none\"/>\n",
                     trial, fixed(x), fixed(y - 9), fixed(x + 9), fixed(y), fixed(x), fixed(y + 9),
                     fixed(x - 9), fixed(y), chart_colour::cancelled);
}

// Horizontal then vertical segments: the best value holds until a trial beats it.
std::string step_line(const std::vector<trial_chart_data::point>& best, const linear_scale& x,
                      const linear_scale& y) {
  std::string d = fmt::format("M{} {}", fixed(x(best.front().trial)), fixed(y(best.front().value)));
  for (size_t i = 1; i < best.size(); ++i) {
    d += fmt::format(" H{}", fixed(x(best[i].trial)));
    if (best[i].value != best[i - 1].value)
      d += fmt::format(" V{}", fixed(y(best[i].value)));
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
std::vector<legend_entry> trial_legend_of(const trial_chart_data& d) {
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
  if (!d.cancelled.empty())
    entries.push_back({fmt::format("<path class=\"swatch\" d=\"M0 -6 L6 0 L0 6 L-6 0 Z\" "
                                   "stroke=\"{}\" stroke-width=\"2\" fill=\"none\"/>",
                                   chart_colour::cancelled),
                       "cancelled"});
  return entries;
}

std::string per_trial_svg(const trial_chart_data& d, const per_trial_look& look, int width,
                          int height) {
  chart_frame f;
  f.width = width;
  f.height = height;
  plot_range values;
  for (const auto& p : d.measured)
    values.add(p.value);
  const auto yt = values.ticks();
  const linear_scale x{0.5, std::max(d.last_trial, 1) + 0.5, f.plot_left(), f.plot_right()};
  const linear_scale y{yt.bottom, yt.top, f.plot_bottom(), f.plot_top()};
  const auto value_at = [&](int t) -> const trial_chart_data::point* {
    const auto it = std::find_if(d.measured.begin(), d.measured.end(),
                                 [t](const auto& p) { return p.trial == t; });
    return it != d.measured.end() ? &*it : nullptr;
  };

  std::string out;
  open_svg(out, f, look.id, look.title);
  y_axis(out, f, y, yt.values, yt.decimals, look.y_label);
  x_axis(out, f, x, trial_ticks(d.last_trial), 0, "trial");
  if (!d.best_so_far.empty())
    out += step_line(d.best_so_far, x, y);
  for (const auto& p : d.measured)
    out += trial_point_at(x(p.trial), y(p.value), p.trial, look.value_attribute, p.value);
  for (int t : d.failed)
    out += failed_at(x(t), f.plot_bottom(), t);
  for (int t : d.stopped) {
    const auto* p = value_at(t);
    out += stopped_at(x(t), p ? y(p->value) : f.plot_bottom(), t);
  }
  for (int t : d.cancelled) {
    const auto* p = value_at(t);
    out += cancelled_at(x(t), p ? y(p->value) : f.plot_bottom(), t);
  }
  if (d.measured.empty())
    plot_note(out, f, "no measured trial");
  legend(out, f, trial_legend_of(d));
  close_svg(out);
  return out;
}

} // namespace

std::string mfu_chart_svg(const session_summary& s, int width, int height) {
  return per_trial_svg(trial_chart_points(s, per_trial_metric::mfu_pct),
                       {"mfu-chart", "MFU per trial", "MFU (%)", "mfu-pct"}, width, height);
}

std::string trials_chart_svg(const session_summary& s, int width, int height) {
  return per_trial_svg(trial_chart_points(s, per_trial_metric::tflops_per_gpu),
                       {"trials-chart", "Throughput per trial", "TFLOP/s per GPU", "tflops"},
                       width, height);
}

} // namespace paratune
