// Measured throughput against peak memory, with the device's memory drawn:
// how close each configuration ran to an OOM, and what the headroom bought.
#include <algorithm>

#include <fmt/format.h>

#include "report/chart_points.hpp"
#include "report/charts.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

std::string memory_chart_svg(const session_summary& s, int width, int height) {
  const auto d = memory_chart_points(s);
  chart_frame f;
  f.width = width;
  f.height = height;
  constexpr double mib_per_gib = 1024;
  plot_range gib, tflops;  // the device's memory on the axis too
  for (const auto& p : d.points) {
    gib.add(p.peak_mib / mib_per_gib);
    tflops.add(p.tflops);
  }
  if (d.limit_mib > 0 && gib.any)
    gib.add(d.limit_mib / mib_per_gib);
  const auto xt = gib.ticks(6, std::max(d.limit_mib, 1024.0) / mib_per_gib);
  const auto yt = tflops.ticks();
  std::string out;
  const auto [x, y] = open_xy_chart(out, f, "memory-chart", "Throughput against peak memory", xt,
                                    "peak memory per GPU (GiB)", yt, "measured TFLOP/s per GPU");
  std::vector<legend_entry> entries;
  if (d.limit_mib > 0) {
    const double px = x(d.limit_mib / mib_per_gib);
    out += fmt::format("<line class=\"memory-limit\" data-limit-mib=\"{0}\" x1=\"{2}\" y1=\"{3}\" "
                       "x2=\"{2}\" y2=\"{4}\" stroke=\"{1}\" stroke-width=\"2\" "
                       "stroke-dasharray=\"6 4\"/>\n",
                       fixed(d.limit_mib, 0), chart_colour::limit, fixed(px), fixed(f.plot_top()),
                       fixed(f.plot_bottom()));
    out += fmt::format("<text class=\"limit-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
                       "fill=\"#222222\">device memory {} GiB</text>\n",
                       fixed(px - 4), fixed(f.plot_top() + 14),
                       fixed(d.limit_mib / mib_per_gib, d.limit_mib >= 10 * mib_per_gib ? 0 : 1));
    entries.push_back({fmt::format("<line class=\"swatch\" x1=\"-7\" y1=\"0\" x2=\"7\" y2=\"0\" "
                                   "stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>",
                                   chart_colour::limit),
                       "device memory"});
  }
  for (const auto& p : d.points) {
    const double px = x(p.peak_mib / mib_per_gib), py = y(p.tflops);
    out += fmt::format("<circle class=\"point memory\" data-trial=\"{}\" data-peak-mib=\"{}\" "
                       "data-tflops=\"{}\" cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"/>\n",
                       p.trial, fixed(p.peak_mib, 0), fixed(p.tflops, 2), fixed(px), fixed(py),
                       chart_colour::memory);
    out += point_label(px, py, p.trial);
  }
  if (d.points.empty())
    plot_note(out, f, "no measured trial reported its peak memory");
  else
    entries.insert(entries.begin(),
                   {fmt::format("<circle class=\"swatch\" r=\"5\" fill=\"{}\"/>",
                                chart_colour::memory),
                    "trial"});
  legend(out, f, entries);
  close_svg(out);
  return out;
}

} // namespace paratune
