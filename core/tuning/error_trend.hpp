#pragma once

#include <array>
#include <vector>

#include "core/training_config.hpp"

namespace paratune {

/// How the performance model's error moves with the parallel split, as a
/// session's measurements show it, and how sure that is.
///
/// The model's error is not one bias. On small models its fixed costs per
/// micro-batch and per layer (kernel launches, the host's dispatch floor,
/// collective latency) are the roughest part of it, so its error on the
/// vTrain A100 tables differs between micro batch 1 with TP 8 and micro
/// batch 4 with TP 2. Such an error grows steadily with the degrees, so the log of measured/predicted throughput
/// is fitted as a linear function of log2 of TP, PP, CP, EP, VPP and the
/// micro-batch size: a Bayesian linear regression whose slopes have a prior
/// of zero. With one measured configuration the trend is that run's bias;
/// a slope grows only as far as the runs support it; and a degree the runs
/// never varied keeps its prior uncertainty, so a candidate that extends
/// the measured range (micro batch 4 after runs at 1 only) is uncertain in
/// proportion to how far it goes.
class error_trend {
public:
  static constexpr int features = 6;
  using point = std::array<double, features>;

  /// One measured configuration: the mean log(measured/predicted) of its runs.
  void add(const training_config& c, double log_ratio);
  /// Fits the trend. `noise_sigma`: a configuration's own departure from
  /// the trend (log units); `slope_sigma`: the prior spread of each slope
  /// (log units per doubling).
  void fit(double noise_sigma, double slope_sigma);
  /// The fitted log ratio at `c` (0 before any run).
  double at(const training_config& c) const;
  /// The standard deviation of at(c) (the trend's own uncertainty, without
  /// the configuration's departure from it); 0 before any run.
  double sd_at(const training_config& c) const;
  /// The spread (standard deviation) of the measured log ratios around their
  /// mean: how far the model's ranking is from a uniform bias; 0 with fewer
  /// than two configurations.
  double spread() const;
  size_t size() const { return ys_.size(); }
  /// The mean measured log ratio (the session's bias; 0 before any run).
  double mean() const;

  static point features_of(const training_config& c);

private:
  using matrix = std::array<point, features>;
  std::vector<point> xs_;
  std::vector<double> ys_;
  point mean_x_{};
  double mean_y_ = 0;
  double mean_var_ = 0;  ///< variance of the fitted mean (the intercept)
  point slope_{};
  matrix slope_cov_{};   ///< posterior covariance of the slopes
};

} // namespace paratune
