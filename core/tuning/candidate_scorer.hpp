#pragma once

#include "core/tuning/memory_screen.hpp"
#include "core/tuning/throughput_estimator.hpp"

namespace paratune {

/// What a candidate is ranked by, and its parts.
struct candidate_score {
  double tflops = 0;    ///< expected throughput (throughput_estimator)
  double sigma = 0;     ///< its relative uncertainty
  double oom_risk = 0;  ///< chance the true peak exceeds the device
  /// Expected gain in TFLOP/s/GPU over the incumbent plus the worthwhile
  /// margin, times the chance of fitting (1 on the model alone); without an
  /// incumbent, the expected throughput times that chance.
  double value = 0;
};

/// Ranks candidates by their expected improvement over the best measured
/// run (the incumbent), times the chance that the configuration fits.
///
/// Expected improvement E[max(0, X - target)], X ~ N(tflops, sigma*tflops),
/// weighs a candidate's expected value against its uncertainty: a flag
/// toggle of a measured split (known to about a percent) is worth a trial
/// only while it is expected to gain more than run-to-run noise, while a
/// new split the model ranks a few percent lower (known only to ~6%) keeps
/// a real chance of being better. So trials go to structure before sub-1%
/// toggles once the toggles are all within noise. The target is the
/// incumbent plus `worthwhile` (1%): smaller gains are not worth a trial.
/// The memory factor applies once a measured run of a near configuration
/// backs the peak estimate: then a near-OOM candidate gets no trial unless
/// it is clearly better (a failed trial is a wasted one, and a nearly full
/// device runs slow). On the model alone a candidate the screen lets
/// through is ranked by throughput only: within the model's measured error
/// band only a run can tell, and a configuration NVIDIA ran at 76 GB of 80
/// must not lose to a slower one the model is sure of.
class candidate_scorer {
public:
  /// The smallest gain over the incumbent worth a trial.
  static constexpr double worthwhile = 0.01;

  /// `incumbent_tflops`: the best measured throughput, 0 before any success.
  candidate_scorer(throughput_estimator& estimator, const memory_screen& memory,
                   double incumbent_tflops)
    : estimator_(estimator), memory_(memory), incumbent_(incumbent_tflops) {}

  candidate_score score(const training_config& c) const;
  throughput_estimator& estimator() const { return estimator_; }

private:
  throughput_estimator& estimator_;
  const memory_screen& memory_;
  double incumbent_ = 0;
};

/// E[max(0, X - target)] for X ~ N(mean, sd).
double expected_improvement(double mean, double sd, double target);

/// The chance that a peak of `peak_mib` (corrected by a nearby measurement
/// when `measured`) exceeds `limit_mib`: the model's memory error is about
/// 6% of the device alone, 2% once a neighbour's offset is known.
double oom_risk(double peak_mib, double limit_mib, bool measured);

} // namespace paratune
