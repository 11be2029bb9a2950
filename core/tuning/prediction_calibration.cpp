#include "core/tuning/prediction_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "core/tuning/throughput_estimator.hpp"

namespace paratune {

prediction_calibration calibrate_predictions(const tuning_context& ctx,
                                             const std::vector<trial_outcome>& history,
                                             size_t max_checks) {
  prediction_calibration out;
  std::vector<size_t> firsts;  // history index of each configuration's first measurement
  std::set<std::string> seen;
  for (size_t i = 0; i < history.size(); ++i)
    if (history[i].measured() && seen.insert(fingerprint(history[i].config)).second)
      firsts.push_back(i);
  const size_t from = firsts.size() > max_checks + 1 ? firsts.size() - max_checks : 1;
  for (size_t k = from; k < firsts.size(); ++k) {
    const size_t i = firsts[k];
    const std::vector<trial_outcome> before(history.begin(), history.begin() + long(i));
    throughput_estimator estimator(ctx, before);
    const auto e = estimator.estimate(history[i].config);
    if (e.tflops <= 0 || e.sigma <= 0)
      continue;
    prediction_check c;
    c.trial = trial_number(history, i);
    c.predicted_tflops = e.tflops;
    c.sigma = e.sigma;
    c.measured_tflops = history[i].tflops_per_gpu;
    c.z = std::log(c.measured_tflops / c.predicted_tflops) / c.sigma;
    out.checks.push_back(c);
  }
  if (out.checks.empty())
    return out;
  double sum = 0;
  for (const auto& c : out.checks)
    sum += c.z * c.z;
  out.sigma_scale = std::clamp(std::sqrt(sum / double(out.checks.size())),
                               prediction_calibration::min_scale,
                               prediction_calibration::max_scale);
  out.degrees_of_freedom = double(out.checks.size());
  return out;
}

} // namespace paratune
