#include "core/trial_scoring.hpp"

#include <algorithm>

namespace paratune {

namespace {

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

trial_score score_iterations(const std::vector<iteration_sample>& samples, int warmup) {
  std::vector<iteration_sample> steady;
  for (const auto& s : samples)
    if (s.iteration > warmup && s.elapsed_ms > 0)
      steady.push_back(s);
  std::vector<double> times;
  for (const auto& s : steady)
    times.push_back(s.elapsed_ms);
  const double typical = median(times);
  trial_score out;
  std::vector<double> kept_times, kept_tflops;
  for (const auto& s : steady) {
    if (s.elapsed_ms > 1.5 * typical)
      continue; // a hiccup (checkpoint, evaluation, straggler) is not the config's speed
    kept_times.push_back(s.elapsed_ms);
    if (s.tflops_per_gpu > 0)
      kept_tflops.push_back(s.tflops_per_gpu);
  }
  out.scored = int(kept_times.size());
  out.iteration_ms = median(kept_times);
  out.tflops_per_gpu = median(kept_tflops);
  return out;
}

} // namespace paratune
