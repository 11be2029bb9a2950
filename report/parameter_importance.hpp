#pragma once

#include <string>
#include <vector>

#include "report/session_summary.hpp"

namespace paratune {

/// What the chart's, the JSON's and docs/cli.md's numbers are, as they
/// state it.
inline constexpr const char* importance_method =
  "effect size: omega squared (one-way ANOVA, bias-corrected) of each group of keys that "
  "always changed together; share: a group's effect size over the sum of all groups' "
  "(the shares add up to 100%)";

/// How much of the measured throughput's variance each key that varied
/// explains. Keys that always changed together across the measured trials
/// (the same trials share a value of one exactly when they share a value of
/// the other: a trial that changed tp, dist_opt, fused_ce and recompute at
/// once) cannot be told apart by any analysis, so they form one group,
/// "tp + recompute + dist_opt + fused_ce", and get one figure.
///
/// A group's effect size is omega squared of a one-way ANOVA on the
/// measured trials grouped by its values,
///   (SS_between - (k - 1) * MS_within) / (SS_total + MS_within),
/// clamped to [0, 1]. Unlike eta squared (SS_between / SS_total), it does
/// not credit a key with many levels for the noise of a small sample, which
/// is what 10-30 trials are. Each is the variance that group explains on
/// its own, so effect sizes overlap and do not add up; the share is the
/// group's effect size over the sum of every estimable group's, which does
/// (100% in all when any group explains anything). A group whose every
/// level has one trial leaves no within-group variance to judge by: not
/// estimable, no share.
struct key_importance {
  std::string key;                ///< the group as shown: its keys joined by " + "
  std::vector<std::string> keys;  ///< its keys, canonical order
  double effect = 0;              ///< omega squared, 0..1
  double share = 0;               ///< effect over the sum of every estimable group's, 0..1
  int levels = 0;                 ///< distinct values among the measured trials
  bool estimable = true;
};
struct importance_result {
  int measured = 0;                 ///< the trials it is computed from
  std::vector<key_importance> keys; ///< largest effect first; ties in canonical key order
};
/// None of the keys when fewer than 3 trials were measured.
importance_result parameter_importance(const session_summary& s);

} // namespace paratune
