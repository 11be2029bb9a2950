#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/session_summary.hpp"

namespace paratune {

/// What a per-trial chart plots (MFU or throughput against the trial
/// number), in trial order: kept apart from the drawing so the JSON report
/// and the tests read the same numbers the SVG shows.
enum class per_trial_metric { mfu_pct, tflops_per_gpu };

struct trial_chart_data {
  struct point {
    int trial = 0;
    double value = 0;  ///< MFU in percent, or TFLOP/s per GPU
  };
  int last_trial = 0;               ///< the x axis runs from trial 1 to here
  std::vector<point> measured;      ///< every trial with a measured throughput
  std::vector<point> best_so_far;   ///< the incumbent: one step per trial from the first measured one
  std::vector<int> failed;          ///< drawn as an x on the x axis
  std::vector<int> stopped;         ///< ended early by the early stopper
  std::vector<int> cancelled;       ///< ended by a cancel: not the early stopper's doing
};
trial_chart_data trial_chart_points(const session_summary& s, per_trial_metric metric);
inline trial_chart_data mfu_chart_points(const session_summary& s) {
  return trial_chart_points(s, per_trial_metric::mfu_pct);
}

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

/// The configuration keys whose values differ across the session's trials,
/// in the order of the first trial's configuration (then new keys in order).
std::vector<std::string> varying_keys(const session_summary& s);

/// Whether every value is a number (then an axis orders them by value).
bool all_numeric(const std::vector<std::string>& values);
/// The distinct values of `key` among `trials`' configurations, ordered:
/// by number when all are numbers, else as text; a trial without the key
/// counts as "-".
std::vector<std::string> levels_of(const std::vector<trial_row>& trials, const std::string& key);
/// `key`'s value in `c`, "-" when absent.
std::string value_of(const wire::config_map& c, const std::string& key);

/// The parallel-coordinates chart: one axis per key that varied, a last
/// axis of measured TFLOP/s per GPU, one line per measured trial.
struct parallel_chart_data {
  struct axis {
    std::string key;
    std::vector<std::string> levels;  ///< bottom to top
  };
  struct line {
    int trial = 0;
    std::vector<int> level;  ///< index into each axis's levels
    double tflops = 0;
  };
  std::vector<axis> axes;
  std::vector<line> lines;
  double min_tflops = 0, max_tflops = 0;
};
parallel_chart_data parallel_chart_points(const session_summary& s);

/// Measured throughput against peak memory, and the device's memory.
struct memory_chart_data {
  struct point {
    int trial = 0;
    double peak_mib = 0;
    double tflops = 0;
  };
  std::vector<point> points;  ///< measured trials that reported their peak
  double limit_mib = 0;       ///< the device memory; 0 when unknown
};
memory_chart_data memory_chart_points(const session_summary& s);

/// Every chart's data as the report's `charts` JSON.
nlohmann::json charts_json(const session_summary& s);

} // namespace paratune
