#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "report/session_summary.hpp"

namespace paratune {

/// What the MFU chart plots, in trial order: kept apart from the drawing so
/// the JSON report and the tests read the same numbers the SVG shows.
struct mfu_chart_data {
  struct point {
    int trial = 0;
    double mfu_pct = 0;
  };
  int last_trial = 0;               ///< the x axis runs from trial 1 to here
  std::vector<point> measured;      ///< every trial with a measured throughput
  std::vector<point> best_so_far;   ///< one step per trial from the first measured one
  std::vector<int> failed;          ///< drawn as an x on the x axis
  std::vector<int> stopped;         ///< ended early by the early stopper
};
mfu_chart_data mfu_chart_points(const session_summary& s);

/// What the predicted-against-measured chart plots: trials the proposal
/// predicted and that were measured.
struct throughput_chart_data {
  struct point {
    int trial = 0;
    double predicted = 0;  ///< TFLOP/s per GPU
    double measured = 0;
  };
  std::vector<point> points;
};
throughput_chart_data throughput_chart_points(const session_summary& s);

/// Both as the report's `charts` JSON.
nlohmann::json charts_json(const session_summary& s);

} // namespace paratune
