#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// Text made safe inside XML and HTML, as element content and as a quoted
/// attribute value: & < > " ' become entities. Every string read from the
/// pool goes through it before it reaches a report.
std::string markup_escape(std::string_view text);

/// A number with a fixed count of decimals ("12.5"), so that the same
/// input always renders the same bytes; -0 prints as 0.
std::string fixed(double value, int decimals = 1);

/// A linear map from a data interval onto a pixel interval.
struct linear_scale {
  double lo = 0, hi = 1;       ///< data
  double from = 0, to = 1;     ///< pixels (`to` may be below `from`: the y axis)
  double operator()(double v) const;
};

/// Tick positions for an axis from 0 (or `lo`) to at least `hi`: a step of
/// 1, 2 or 5 times a power of ten giving about `count` ticks.
struct axis_ticks {
  double step = 1;
  double top = 1;                ///< the last tick, at or above `hi`
  int decimals = 0;              ///< what the step needs to print exactly
  std::vector<double> values;
};
axis_ticks nice_ticks(double lo, double hi, int count = 5);

/// Where a chart draws: the SVG's size and the plot area inside its margins.
struct chart_frame {
  int width = 720, height = 320;
  double left = 64, right = 24, top = 40, bottom = 52;
  double plot_left() const { return left; }
  double plot_right() const { return width - right; }
  double plot_top() const { return top; }
  double plot_bottom() const { return height - bottom; }
};

/// The pieces every chart shares, appended to `out` as SVG elements.
void open_svg(std::string& out, const chart_frame& f, std::string_view id, std::string_view title);
void close_svg(std::string& out);
/// An x axis along the plot's bottom edge, ticks labelled with `decimals`.
void x_axis(std::string& out, const chart_frame& f, const linear_scale& x,
            const std::vector<double>& ticks, int decimals, std::string_view label);
/// A y axis along the plot's left edge, with faint grid lines at its ticks.
void y_axis(std::string& out, const chart_frame& f, const linear_scale& y,
            const std::vector<double>& ticks, int decimals, std::string_view label);
/// A centred note in the plot area ("no measured trial").
void plot_note(std::string& out, const chart_frame& f, std::string_view text);

/// One legend entry: `swatch` is an SVG element drawn at (x, y) by the
/// caller's marker function, `label` beside it.
struct legend_entry {
  std::string swatch;
  std::string label;
};
/// The entries in a row above the plot's top right corner.
void legend(std::string& out, const chart_frame& f, const std::vector<legend_entry>& entries);

} // namespace paratune
