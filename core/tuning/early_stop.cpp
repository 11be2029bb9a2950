#include "core/tuning/early_stop.hpp"

#include <algorithm>
#include <cstdio>

namespace paratune {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string format(const char* pattern, double a, double b, double c = 0) {
  char buf[200];
  std::snprintf(buf, sizeof buf, pattern, a, b, c);
  return buf;
}

} // namespace

early_stopper::early_stopper(early_stop_policy policy, incumbent_rate incumbent)
  : policy_(policy), incumbent_(incumbent) {}

stop_decision early_stopper::on_iteration(const iteration_sample& s) {
  if (++seen_ <= policy_.warmup || s.elapsed_ms <= 0)
    return {};
  scored_.push_back(s);
  if (auto d = against_incumbent())
    return d;
  return stable();
}

stop_decision early_stopper::stable() const {
  const int n = policy_.stable_after;
  if (n < 1 || int(scored_.size()) < n)
    return {};
  std::vector<double> ms;
  for (auto it = scored_.end() - n; it != scored_.end(); ++it)
    ms.push_back(it->elapsed_ms);
  const double mid = median(ms);
  const auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  const double spread = (*hi - *lo) / mid;
  if (spread > policy_.tolerance)
    return {};
  return {stop_reason::stable,
          format("stable: the last %.0f iterations lie within %.1f%% of %.0f ms", n,
                 100 * spread, mid)};
}

void early_stopper::race(incumbent_rate other) {
  if (!other.known())
    return;
  // Throughput when both have it; a framework that logs none is compared
  // by its step time (a session trains one batch and sequence throughout).
  const bool better =
    !incumbent_.known()
    || (other.tflops_per_gpu > 0 && incumbent_.tflops_per_gpu > 0
          ? other.tflops_per_gpu > incumbent_.tflops_per_gpu
          : other.iteration_ms > 0 && (incumbent_.iteration_ms <= 0
                                       || other.iteration_ms < incumbent_.iteration_ms));
  if (better)
    incumbent_ = other;
}

stop_decision early_stopper::against_incumbent() {
  if (!policy_.rung || !incumbent_.known() || int(scored_.size()) < next_rung_)
    return {};
  next_rung_ *= 2; // rungs at 3, 6, 12, ... scored iterations
  const bool by_tflops = incumbent_.tflops_per_gpu > 0
                         && std::all_of(scored_.begin(), scored_.end(),
                                        [](const auto& s) { return s.tflops_per_gpu > 0; });
  std::vector<double> v;
  for (const auto& s : scored_)
    v.push_back(by_tflops ? s.tflops_per_gpu : s.elapsed_ms);
  const double mid = median(v);
  const double grace = 1 + policy_.tolerance;
  if (by_tflops && mid * grace < incumbent_.tflops_per_gpu)
    return {stop_reason::cannot_beat_incumbent,
            format("cannot beat the incumbent: %.1f TFLOP/s/GPU over %.0f iterations, the best "
                   "run has %.1f",
                   mid, double(scored_.size()), incumbent_.tflops_per_gpu)};
  if (!by_tflops && incumbent_.iteration_ms > 0 && mid > incumbent_.iteration_ms * grace)
    return {stop_reason::cannot_beat_incumbent,
            format("cannot beat the incumbent: %.0f ms per iteration over %.0f iterations, the "
                   "best run takes %.0f ms",
                   mid, double(scored_.size()), incumbent_.iteration_ms)};
  return {};
}

stop_decision early_stopper::on_failure(const std::string& line) const {
  return {stop_reason::failure, "failure line: " + line.substr(0, 200)};
}

stop_decision early_stopper::on_clock(double since_start_s, double since_line_s) const {
  if (policy_.wall_s > 0 && since_start_s >= policy_.wall_s)
    return {stop_reason::wall_clock,
            format("wall-clock limit: ran %.0f s, the limit is %.0f s", since_start_s,
                   policy_.wall_s)};
  if (policy_.hang_s > 0 && since_line_s >= policy_.hang_s)
    return {stop_reason::hang,
            format("hang: no output for %.0f s (limit %.0f s)", since_line_s, policy_.hang_s)};
  return {};
}

} // namespace paratune
