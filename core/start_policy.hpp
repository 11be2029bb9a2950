#pragma once

#include <string>

namespace paratune {

/// What a session's first trial runs (the job's `start:`).
enum class start_policy {
  /// The job's initial configuration: the team's current setup, measured
  /// as the baseline every later trial is compared with (OptiCo).
  initial,
  /// The performance model's best candidate. For a job with no setup of its
  /// own to measure (a replay of a past sweep, a new model): a first trial
  /// spent on an arbitrary starting point buys nothing. The initial
  /// configuration then only supplies the keys the search leaves alone.
  predicted_best,
};

/// "initial", "predicted_best": the job-file and wire forms.
const char* to_string(start_policy p);
bool parse_start_policy(const std::string& text, start_policy& out);

} // namespace paratune
