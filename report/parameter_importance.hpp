#pragma once

#include <string>
#include <vector>

#include "report/session_summary.hpp"

namespace paratune {

/// The method's name as the chart, the JSON and docs/cli.md state it.
inline constexpr const char* importance_method =
  "omega squared (one-way ANOVA, bias-corrected variance share)";

/// How much of the measured throughput's variance each key that varied
/// explains, key by key: omega squared of a one-way ANOVA on the measured
/// trials grouped by that key's value,
///   (SS_between - (k - 1) * MS_within) / (SS_total + MS_within),
/// clamped to [0, 1]. Unlike eta squared (SS_between / SS_total), it does
/// not credit a key with many levels for the noise of a small sample, which
/// is what 10-30 trials are. A key whose every level has one trial leaves
/// no within-group variance to judge by: not estimable.
struct key_importance {
  std::string key;
  double share = 0;      ///< omega squared, 0..1
  int levels = 0;        ///< distinct values among the measured trials
  bool estimable = true;
};
struct importance_result {
  int measured = 0;                 ///< the trials it is computed from
  std::vector<key_importance> keys; ///< largest share first; ties by key
};
/// None of the keys when fewer than 3 trials were measured.
importance_result parameter_importance(const session_summary& s);

} // namespace paratune
