#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "core/perf/perf_model.hpp"
#include "core/tuning/error_trend.hpp"
#include "core/tuning/tuning_context.hpp"
#include "core/trial_outcome.hpp"

namespace paratune {

/// What the session expects a configuration to do.
struct throughput_estimate {
  double tflops = 0;     ///< measured, or the model corrected by measurements
  double sigma = 0;      ///< relative uncertainty of `tflops` (0.01 = 1%)
  bool measured = false; ///< the configuration ran successfully
  int nearest = -1;      ///< history index of the nearest successful run, -1 if none
  int distance = 0;      ///< config_distance to it
  /// The measured throughput of a run `c` only adds work to
  /// (work_order.hpp), which caps `tflops`; 0 if none.
  double cap_tflops = 0;
};

/// The performance model's predictions, cached per configuration, and
/// corrected by what the session measured.
///
/// The model is 5-10% off on a real cluster (several times off on small
/// models, where fixed costs dominate), and the error has structure: a
/// cluster-wide bias that moves with the parallel degrees, plus effects of
/// particular splits. So a candidate's measured/predicted ratio is
/// estimated in two layers: the error trend of every measured
/// configuration (error_trend.hpp: the bias, and its slope over log2 of the
/// degrees and the micro batch), plus the deviation of nearby runs from
/// it, weighted by exp(-distance/2) and shrunk toward zero (a neighbour one
/// flag away counts fully, a different split little). Its uncertainty
/// grows with how far its parallel split is from every measured one: flag
/// toggles of a measured split are known to about a percent, a new micro
/// batch or recomputation to ~3%, a new TP/PP split only to the model's own
/// error: 6%, or the spread of this session's measured ratios when that is
/// larger.
///
/// Neither layer knows that some changes only add work. A run's measured
/// throughput caps every configuration that runs its split with more
/// recomputation, an overlap turned off or the unfused loss
/// (only_adds_work), since the model is monotone in each; without the cap a
/// trend fitted on other splits can predict such a configuration faster
/// than the run it slows down, and the session runs it, or waits on it
/// before it stops. The exception is a run at the device's limit (OptiCo's
/// MEMORY_BOUND) that the stronger recomputation would give memory back to.
class throughput_estimator {
public:
  /// The model's error on a split no run has informed (its MAPE on the
  /// published tables).
  static constexpr double model_sigma = 0.06;
  /// A measured median of ~10 iterations with 1% run-to-run noise.
  static constexpr double measured_sigma = 0.005;
  /// Flags (overlaps, fused loss, distributed optimizer) of a measured split.
  static constexpr double flag_sigma = 0.01;
  /// The widest prior the error trend's slopes take from the session's
  /// spread (log units per doubling).
  static constexpr double max_slope_sigma = 0.5;
  /// How many measured splits the error trend needs before it fits slopes;
  /// with fewer, its slopes' prior is `no_slope_sigma` (the bias alone).
  static constexpr size_t slopes_from = 3;
  static constexpr double no_slope_sigma = 1e-3;

  throughput_estimator(const tuning_context& ctx, const std::vector<trial_outcome>& history);

  /// The model alone (cached).
  const perf_prediction& raw(const training_config& c);
  /// The measurement where `c` ran, else the corrected model.
  throughput_estimate estimate(const training_config& c);

private:
  /// The prior spread of the error trend's slopes (log units per doubling).
  double slope_prior() const;
  /// Caps `e` at the measured runs `c` only adds work to.
  void cap_by_measured_runs(const training_config& c, throughput_estimate& e);
  /// Whether `c` frees memory that `run`, at the device's limit, was short of.
  bool relieves_memory(const training_config& c, const trial_outcome& run);

  const tuning_context& ctx_;
  const std::vector<trial_outcome>& history_;
  /// The successful runs of one configuration. Every candidate is compared
  /// with every measured configuration, so a history of many thousand rows
  /// (few distinct configurations) costs per configuration, not per row.
  struct measured_config {
    int first = 0;             ///< history index of its first successful run
    int runs = 0;
    double log_ratio_sum = 0;  ///< sum of log(measured / predicted) over its runs
    double deviation = 0;      ///< log_ratio_sum less the error trend's, over its runs
  };

  /// Every key's value mixed, read as fingerprint() reads them but with no
  /// string built: raw() runs several times per configuration of the space
  /// in every analysis. Equality is the configuration's own (every field).
  struct config_hash {
    size_t operator()(const training_config& c) const;
  };
  std::unordered_map<training_config, perf_prediction, config_hash> cache_;
  std::vector<measured_config> measured_;  ///< in order of first run
  error_trend trend_;                      ///< the model's error across splits
};

} // namespace paratune
