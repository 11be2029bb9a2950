#pragma once

#include <string>

#include "report/session_summary.hpp"

namespace paratune {

/// A session's charts as self-contained SVG text (no script, no external
/// reference), the same bytes for the same summary. Elements carry stable
/// classes for tests and pages that embed them:
///   MFU chart (id "mfu-chart"): `circle.point.measured` per measured trial,
///   `path.best-so-far` (a step line), `path.marker.failed` (an x on the x
///   axis), `rect.marker.stopped` (a square around the point, or on the axis
///   when nothing was measured), `text.note` when no trial was measured.
///   Throughput chart (id "throughput-chart"): `circle.point.predicted` per
///   trial with a prediction and a measurement, `line.identity` (y = x).
/// Each point has `data-trial` and its values as data attributes.
std::string mfu_chart_svg(const session_summary& s, int width = 720, int height = 320);
std::string throughput_chart_svg(const session_summary& s, int width = 720, int height = 320);

/// The colours the charts draw with, one per series, used nowhere else in a
/// report, so a rendered page can be checked pixel by pixel.
namespace chart_colour {
inline constexpr const char* measured = "#1f77b4";
inline constexpr const char* best_so_far = "#2ca02c";
inline constexpr const char* failed = "#d62728";
inline constexpr const char* stopped = "#ff7f0e";
inline constexpr const char* predicted = "#9467bd";
inline constexpr const char* identity = "#7f7f7f";
} // namespace chart_colour

} // namespace paratune
