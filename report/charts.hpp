#pragma once

#include <map>
#include <string>
#include <vector>

#include "messages/wire_types.hpp"
#include "report/session_summary.hpp"

namespace paratune {

/// A session's charts as self-contained SVG text (no script, no external
/// reference), the same bytes for the same summary. Every axis is fitted to
/// the data it shows (svg_canvas's data_ticks): its first tick at or below
/// the smallest value, its last at or above the largest. Elements carry
/// stable classes for tests and pages that embed them:
///   MFU chart (id "mfu-chart") and throughput chart (id "trials-chart"),
///   per trial: `circle.point.measured` per measured trial,
///   `path.best-so-far` (the incumbent, a step line), `path.marker.failed`
///   (an x on the x axis), `rect.marker.stopped` (a square around the point,
///   or on the axis when nothing was measured), `path.marker.cancelled` (a
///   diamond: ended by a cancel, not by the early stopper), `text.note` when
///   no trial was measured.
///   Predicted against measured (id "throughput-chart"):
///   `circle.point.predicted` per trial with a prediction and a measurement,
///   `text.point-label` (its trial number), `line.identity` (y = x).
///   Parallel coordinates (id "parallel-chart"): `g.pc-axis` per key that
///   varied and one for TFLOP/s/GPU, `polyline.pc-line` per measured trial
///   (`.best` on the best one).
///   Memory (id "memory-chart"): `circle.point.memory` per measured trial
///   with its peak, `text.point-label`, `line.memory-limit` at the device's
///   memory.
///   Importance (id "importance-chart"): `rect.importance-bar` per key that
///   varied, `text.method` naming the method.
///   Live (id "live-chart"): `polyline.live-line` per running trial.
/// Each point has `data-trial` and its values as data attributes.
std::string mfu_chart_svg(const session_summary& s, int width = 720, int height = 320);
std::string trials_chart_svg(const session_summary& s, int width = 720, int height = 320);
std::string throughput_chart_svg(const session_summary& s, int width = 720, int height = 320);
std::string parallel_chart_svg(const session_summary& s, int width = 720, int height = 340);
std::string memory_chart_svg(const session_summary& s, int width = 720, int height = 320);
std::string importance_chart_svg(const session_summary& s, int width = 720, int height = 0);

/// Running trials' TFLOP/s per GPU, one value per logged iteration in
/// order, by trial number.
using live_series = std::map<int, std::vector<double>>;
std::string live_chart_svg(const live_series& series, int width = 720, int height = 280);

/// The report's charts in the order the report and the session page show
/// them: the file suffix of each (`NAME.<suffix>.svg` beside a markdown
/// report), its title, and its SVG.
struct named_chart {
  std::string suffix;
  std::string title;
  std::string svg;
};
std::vector<named_chart> report_charts(const session_summary& s);

/// The colours the charts draw with, one per series, used nowhere else in a
/// report, so a rendered page can be checked pixel by pixel.
namespace chart_colour {
inline constexpr const char* measured = "#1f77b4";
inline constexpr const char* best_so_far = "#2ca02c";
inline constexpr const char* failed = "#d62728";
inline constexpr const char* stopped = "#ff7f0e";
inline constexpr const char* predicted = "#9467bd";
inline constexpr const char* identity = "#7f7f7f";
inline constexpr const char* cancelled = "#8c564b";
inline constexpr const char* memory = "#17becf";
inline constexpr const char* limit = "#e377c2";
inline constexpr const char* importance = "#bcbd22";
inline constexpr const char* live = "#393b79";
} // namespace chart_colour

} // namespace paratune
