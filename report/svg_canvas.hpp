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
  double bottom = 0;             ///< the first tick, at or below `lo`
  double top = 1;                ///< the last tick, at or above `hi`
  int decimals = 0;              ///< what the step needs to print exactly
  std::vector<double> values;
};
axis_ticks nice_ticks(double lo, double hi, int count = 5);
/// Ticks fitted to data from `lo` to `hi`: a margin of 5% of the span on
/// each side (5% of the value when all values are equal), never below
/// `floor`, then nice_ticks. The first tick is at or below `lo`, the last at
/// or above `hi`, so the axis brackets the data without running to 0.
axis_ticks data_ticks(double lo, double hi, int count = 5, double floor = 0);

/// The smallest and largest of the values a chart plots on one axis.
struct plot_range {
  double lo = 0, hi = 0;
  bool any = false;
  void add(double v) {
    lo = any ? (v < lo ? v : lo) : v;
    hi = any ? (v > hi ? v : hi) : v;
    any = true;
  }
  /// data_ticks over the values; `empty` (from 0) when there are none.
  axis_ticks ticks(int count = 5, double empty = 100) const;
};

/// Where a chart draws: the SVG's size and the plot area inside its margins.
struct chart_frame {
  int width = 720, height = 320;
  double left = 64, right = 24, top = 40, bottom = 52;
  double plot_left() const { return left; }
  double plot_right() const { return width - right; }
  double plot_top() const { return top; }
  double plot_bottom() const { return height - bottom; }
};

/// A chart's SVG for embedding in an HTML page: inline SVG needs no
/// namespace declaration, and leaving it out keeps the page free of any URL.
std::string inline_svg(std::string svg);

/// The pieces every chart shares, appended to `out` as SVG elements.
void open_svg(std::string& out, const chart_frame& f, std::string_view id, std::string_view title);
void close_svg(std::string& out);
/// An x axis along the plot's bottom edge, ticks labelled with `decimals`.
void x_axis(std::string& out, const chart_frame& f, const linear_scale& x,
            const std::vector<double>& ticks, int decimals, std::string_view label);
/// A y axis along the plot's left edge, with faint grid lines at its ticks.
void y_axis(std::string& out, const chart_frame& f, const linear_scale& y,
            const std::vector<double>& ticks, int decimals, std::string_view label);
/// A point's trial number, drawn up and right of the point at (x, y).
std::string point_label(double x, double y, int trial);
/// A chart of two value axes: opens the SVG, draws both axes over their
/// ticks, and gives the scales that map data onto the plot.
struct xy_scales {
  linear_scale x, y;
};
xy_scales open_xy_chart(std::string& out, const chart_frame& f, std::string_view id,
                        std::string_view title, const axis_ticks& xt, std::string_view x_label,
                        const axis_ticks& yt, std::string_view y_label);

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
