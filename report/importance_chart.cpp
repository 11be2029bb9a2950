// Parameter importance: how much of the measured throughput's variance each
// key that varied explains (report/parameter_importance.hpp), as bars.
#include <algorithm>

#include <fmt/format.h>

#include "report/charts.hpp"
#include "report/parameter_importance.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

std::string importance_chart_svg(const session_summary& s, int width, int height) {
  const auto imp = parameter_importance(s);
  constexpr double bar_step = 28;
  chart_frame f;
  f.width = width;
  f.left = 140;
  for (const auto& k : imp.keys)  // a group's label ("tp + recompute + dist_opt") needs room
    f.left = std::max(f.left, 24 + 7 * double(k.key.size()));
  f.top = 64;
  f.height = height > 0 ? height
                        : int(f.top + f.bottom + bar_step * double(std::max<size_t>(imp.keys.size(), 2)));
  std::string out;
  open_svg(out, f, "importance-chart", "Parameter importance");
  // What the numbers are, in two lines: the effect size, then the share.
  const std::string method = importance_method;
  const auto cut = method.find("; share:");
  out += fmt::format("<text class=\"method\" x=\"8\" y=\"36\" fill=\"#444444\" "
                     "font-size=\"10\">{}, over {} measured trials;</text>\n",
                     markup_escape(method.substr(0, cut)), imp.measured);
  out += fmt::format("<text class=\"method\" x=\"8\" y=\"50\" fill=\"#444444\" "
                     "font-size=\"10\">{}</text>\n",
                     markup_escape(method.substr(cut + 2)));
  if (imp.keys.empty()) {
    plot_note(out, f, imp.measured < 3 ? "fewer than 3 measured trials" : "no key varied");
    close_svg(out);
    return out;
  }
  double top = 0;
  for (const auto& k : imp.keys)
    top = std::max(top, 100 * k.share);
  const auto t = nice_ticks(0, std::max(top, 1.0), 5);
  const linear_scale x{0, t.top, f.plot_left(), f.plot_right()};
  x_axis(out, f, x, t.values, t.decimals,
         "share of the summed effect sizes (%; the shares add up to 100%)");
  for (size_t i = 0; i < imp.keys.size(); ++i) {
    const auto& k = imp.keys[i];
    const double y = f.plot_top() + bar_step * double(i);
    out += fmt::format("<text class=\"bar-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
                       "fill=\"#222222\">{}</text>\n",
                       fixed(f.plot_left() - 8), fixed(y + bar_step / 2 + 4), markup_escape(k.key));
    if (!k.estimable) {
      out += fmt::format("<text class=\"bar-note\" x=\"{}\" y=\"{}\" fill=\"#666666\" "
                         "font-style=\"italic\">not estimable: one trial per value</text>\n",
                         fixed(f.plot_left() + 6), fixed(y + bar_step / 2 + 4));
      continue;
    }
    const double w = std::max(0.0, x(100 * k.share) - f.plot_left());
    out += fmt::format("<rect class=\"importance-bar\" data-key=\"{}\" data-share-pct=\"{}\" "
                       "data-effect=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                       "fill=\"{}\"/>\n",
                       markup_escape(k.key), fixed(100 * k.share, 1), fixed(k.effect, 3),
                       fixed(f.plot_left()), fixed(y + 5), fixed(w), fixed(bar_step - 10),
                       chart_colour::importance);
    // The share is the bar; the effect size beside it is not a share.
    out += fmt::format("<text class=\"bar-value\" x=\"{}\" y=\"{}\" fill=\"#222222\">{}% "
                       "(effect size {})</text>\n",
                       fixed(f.plot_left() + w + 6), fixed(y + bar_step / 2 + 4),
                       fixed(100 * k.share, 1), fixed(k.effect, 2));
  }
  close_svg(out);
  return out;
}

} // namespace paratune
