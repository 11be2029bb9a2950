#include "core/tuning/candidate_scorer.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace paratune {

namespace {

constexpr double memory_sigma_model = 0.06;
constexpr double memory_sigma_measured = 0.02;

} // namespace

double oom_risk(double peak_mib, double limit_mib, bool measured) {
  if (limit_mib <= 0)
    return 0;
  const double sigma = measured ? memory_sigma_measured : memory_sigma_model;
  const double z = (peak_mib / limit_mib - 1) / sigma;
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double expected_improvement(double mean, double sd, double target) {
  if (sd <= 0)
    return std::max(0.0, mean - target);
  const double z = (mean - target) / sd;
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  return sd * (pdf + z * cdf);
}

candidate_score candidate_scorer::score(const training_config& c) const {
  candidate_score s;
  const auto e = estimator_.estimate(c);
  const auto& p = estimator_.raw(c);
  const auto [peak, measured] = memory_.corrected_peak(c, p);
  s.tflops = e.tflops;
  s.sigma = e.sigma;
  s.oom_risk = oom_risk(peak, p.memory_limit_mib, measured);
  // A measured neighbour makes the risk a real estimate; the model alone
  // cannot tell within its error band, so a tight configuration the model
  // ranks first is tried first (its run settles it, and an OOM teaches the
  // screen about its neighbours).
  const double fits = measured ? 1 - s.oom_risk
                              : p.memory == memory_verdict::does_not_fit ? 0.0 : 1.0;
  s.value = incumbent_ > 0
              ? fits * expected_improvement(e.tflops, e.sigma * e.tflops,
                                            incumbent_ * (1 + worthwhile))
              : fits * e.tflops;
  return s;
}

} // namespace paratune
