#pragma once

#include <vector>

#include "core/trial_outcome.hpp"
#include "core/tuning/tuning_context.hpp"

namespace paratune {

/// One measured configuration held against what the session expected of it
/// before it ran: the throughput estimator (the model corrected by the runs
/// before it, with the error trend's uncertainty) over the history up to
/// that trial.
struct prediction_check {
  int trial = 0;
  double predicted_tflops = 0;
  double sigma = 0;           ///< the estimator's relative uncertainty then
  double measured_tflops = 0;
  /// log(measured / predicted) / sigma: how many of its own sigmas the
  /// prediction was off.
  double z = 0;
};

/// How far the session's predictions were off, in units of their own
/// uncertainty: the stop decision widens every candidate's uncertainty by
/// `sigma_scale` before it trusts it.
struct prediction_calibration {
  std::vector<prediction_check> checks;
  /// sqrt(sum z^2 / checks), within [min_scale, max_scale]; 1 before any
  /// check: a session whose predictions erred more than their sigmas said
  /// is trusted less, one whose predictions erred less is trusted more, but
  /// never more than twice the model's own word. No pseudo-checks pull it
  /// toward 1 (until issue 25's vTrain gap, two at z = 1): the doubt about
  /// a scale measured on few checks is in the tails instead
  /// (degrees_of_freedom).
  double sigma_scale = 1;
  static constexpr double min_scale = 0.5;
  static constexpr double max_scale = 10;
  /// How many checks sigma_scale rests on: the degrees of freedom of the
  /// Student-t that a new prediction's error, in sigmas times sigma_scale,
  /// follows (the posterior predictive of a normal error whose variance is
  /// known only through these checks, under the scale-free prior). Two
  /// checks give tails far heavier than a normal's; twelve, close to it.
  double degrees_of_freedom = 0;
};

/// Each measured configuration after the first (the first has nothing
/// before it to correct the model's bias) against the estimate the
/// history before it gave, the latest `max_checks` of them. A configuration
/// measured again is not a new check.
prediction_calibration calibrate_predictions(const tuning_context& ctx,
                                             const std::vector<trial_outcome>& history,
                                             size_t max_checks = 12);

} // namespace paratune
