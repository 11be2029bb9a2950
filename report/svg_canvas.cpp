#include "report/svg_canvas.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace paratune {

std::string markup_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fixed(double value, int decimals) {
  std::string s = fmt::format("{:.{}f}", value, decimals);
  // "-0.0" and "0.0" are the same coordinate; print it one way.
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos)
    s.erase(0, 1);
  return s;
}

double linear_scale::operator()(double v) const {
  if (hi == lo)
    return (from + to) / 2;
  return from + (v - lo) * (to - from) / (hi - lo);
}

axis_ticks nice_ticks(double lo, double hi, int count) {
  axis_ticks t;
  const double span = std::max(hi - lo, 1e-9);
  const double raw = span / std::max(count, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  t.step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude;
  t.decimals = std::max(0, int(-std::floor(std::log10(t.step) + 1e-9)));
  const long first = long(std::floor(lo / t.step + 1e-9));
  const long last = long(std::ceil(hi / t.step - 1e-9));
  for (long i = first; i <= std::max(last, first + 1); ++i)
    t.values.push_back(i * t.step);
  t.bottom = t.values.front();
  t.top = t.values.back();
  return t;
}

axis_ticks data_ticks(double lo, double hi, int count, double floor) {
  const double span = hi - lo;
  const double margin = span > 0 ? 0.05 * span : std::max(0.05 * std::abs(hi), 1e-6);
  return nice_ticks(std::max(floor, lo - margin), hi + margin, count);
}

axis_ticks plot_range::ticks(int count, double empty) const {
  return any ? data_ticks(lo, hi, count) : nice_ticks(0, empty, count);
}

void open_svg(std::string& out, const chart_frame& f, std::string_view id, std::string_view title) {
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{0}\" class=\"chart\" width=\"{1}\" "
      "height=\"{2}\" viewBox=\"0 0 {1} {2}\" font-family=\"DejaVu Sans, sans-serif\" "
      "font-size=\"12\">\n",
      markup_escape(id), f.width, f.height);
  out += fmt::format("<title>{}</title>\n", markup_escape(title));
  out += fmt::format("<rect class=\"background\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" "
                     "fill=\"#ffffff\"/>\n",
                     f.width, f.height);
  out += fmt::format("<text class=\"title\" x=\"{}\" y=\"22\" font-size=\"15\" "
                     "font-weight=\"bold\" fill=\"#222222\">{}</text>\n",
                     fixed(f.plot_left()), markup_escape(title));
}

std::string inline_svg(std::string svg) {
  const std::string ns = " xmlns=\"http://www.w3.org/2000/svg\"";
  if (const auto at = svg.find(ns); at != std::string::npos)
    svg.erase(at, ns.size());
  return svg;
}

void close_svg(std::string& out) { out += "</svg>\n"; }

void x_axis(std::string& out, const chart_frame& f, const linear_scale& x,
            const std::vector<double>& ticks, int decimals, std::string_view label) {
  const double y0 = f.plot_bottom();
  out += "<g class=\"axis x\" stroke=\"#444444\">\n";
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", fixed(f.plot_left()),
                     fixed(y0), fixed(f.plot_right()), fixed(y0));
  for (double v : ticks) {
    const double px = x(v);
    out += fmt::format("<line class=\"tick\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n",
                       fixed(px), fixed(y0), fixed(y0 + 5));
    out += fmt::format("<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
                       "stroke=\"none\" fill=\"#444444\">{}</text>\n",
                       fixed(px), fixed(y0 + 18), fixed(v, decimals));
  }
  out += fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
                     "stroke=\"none\" fill=\"#222222\">{}</text>\n",
                     fixed((f.plot_left() + f.plot_right()) / 2), fixed(f.height - 10.0),
                     markup_escape(label));
  out += "</g>\n";
}

void y_axis(std::string& out, const chart_frame& f, const linear_scale& y,
            const std::vector<double>& ticks, int decimals, std::string_view label) {
  const double x0 = f.plot_left();
  out += "<g class=\"axis y\" stroke=\"#444444\">\n";
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", fixed(x0),
                     fixed(f.plot_top()), fixed(x0), fixed(f.plot_bottom()));
  for (double v : ticks) {
    const double py = y(v);
    out += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                       "stroke=\"#e4e4e4\"/>\n",
                       fixed(x0), fixed(py), fixed(f.plot_right()));
    out += fmt::format("<line class=\"tick\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n",
                       fixed(x0 - 5), fixed(py), fixed(x0));
    out += fmt::format("<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
                       "stroke=\"none\" fill=\"#444444\">{}</text>\n",
                       fixed(x0 - 8), fixed(py + 4), fixed(v, decimals));
  }
  const double cy = (f.plot_top() + f.plot_bottom()) / 2;
  out += fmt::format("<text class=\"axis-label\" x=\"16\" y=\"{0}\" text-anchor=\"middle\" "
                     "transform=\"rotate(-90 16 {0})\" stroke=\"none\" fill=\"#222222\">{1}</text>\n",
                     fixed(cy), markup_escape(label));
  out += "</g>\n";
}

std::string point_label(double x, double y, int trial) {
  return fmt::format("<text class=\"point-label\" data-trial=\"{0}\" x=\"{1}\" y=\"{2}\" "
                     "font-size=\"11\" fill=\"#333333\">{0}</text>\n",
                     trial, fixed(x + 7), fixed(y - 7));
}

xy_scales open_xy_chart(std::string& out, const chart_frame& f, std::string_view id,
                        std::string_view title, const axis_ticks& xt, std::string_view x_label,
                        const axis_ticks& yt, std::string_view y_label) {
  const xy_scales s{{xt.bottom, xt.top, f.plot_left(), f.plot_right()},
                    {yt.bottom, yt.top, f.plot_bottom(), f.plot_top()}};
  open_svg(out, f, id, title);
  y_axis(out, f, s.y, yt.values, yt.decimals, y_label);
  x_axis(out, f, s.x, xt.values, xt.decimals, x_label);
  return s;
}

void plot_note(std::string& out, const chart_frame& f, std::string_view text) {
  out += fmt::format("<text class=\"note\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
                     "fill=\"#666666\" font-style=\"italic\">{}</text>\n",
                     fixed((f.plot_left() + f.plot_right()) / 2),
                     fixed((f.plot_top() + f.plot_bottom()) / 2), markup_escape(text));
}

void legend(std::string& out, const chart_frame& f, const std::vector<legend_entry>& entries) {
  if (entries.empty())
    return;
  out += "<g class=\"legend\">\n";
  // Right-aligned row: each entry takes its swatch plus about 7 px a letter.
  double x = f.plot_right();
  std::vector<double> starts(entries.size());
  for (size_t i = entries.size(); i-- > 0;) {
    x -= 22 + 7.0 * double(entries[i].label.size()) + 12;
    starts[i] = x;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    out += fmt::format("<g transform=\"translate({} {})\">{}", fixed(starts[i]),
                       fixed(f.plot_top() - 12), entries[i].swatch);
    out += fmt::format("<text x=\"12\" y=\"4\" fill=\"#222222\">{}</text></g>\n",
                       markup_escape(entries[i].label));
  }
  out += "</g>\n";
}

} // namespace paratune
