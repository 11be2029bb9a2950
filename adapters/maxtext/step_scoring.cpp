#include "adapters/maxtext/step_scoring.hpp"

#include <algorithm>

namespace paratune {

namespace {

// Below this share of the run's median step time a step did not wait for
// the device: #4847's step 1 took 0.631 s beside 10.2 s (6%); a real step
// varies by a few percent.
constexpr double dispatch_share = 0.5;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool timed(const maxtext_step& s) {
  return s.phase == step_phase::measured && s.seconds && *s.seconds > 0;
}

void score_run(std::vector<maxtext_step>& steps, std::size_t from, std::size_t to,
               std::optional<double> peak) {
  if (from >= to)
    return;
  if (steps[from].phase == step_phase::measured)
    steps[from].phase = step_phase::compile;
  std::vector<double> times;
  for (std::size_t i = from; i < to; ++i)
    if (timed(steps[i]))
      times.push_back(*steps[i].seconds);
  const double median = times.size() >= 2 ? median_of(times) : 0;
  for (std::size_t i = from; i < to; ++i) {
    auto& s = steps[i];
    if (s.phase != step_phase::measured)
      continue;
    const bool too_fast = median > 0 && s.seconds && *s.seconds < dispatch_share * median;
    const bool beyond_peak = peak && s.tflops_per_device && *s.tflops_per_device > *peak;
    if (too_fast || beyond_peak || !s.seconds || *s.seconds <= 0)
      s.phase = step_phase::async_dispatch;
  }
}

} // namespace

void score_steps(std::vector<maxtext_step>& steps, std::optional<double> peak) {
  std::size_t run_start = 0;
  for (std::size_t i = 1; i <= steps.size(); ++i)
    // A step number that does not go up starts another run (a restart, or
    // a second log appended).
    if (i == steps.size() || steps[i].step <= steps[i - 1].step) {
      score_run(steps, run_start, i, peak);
      run_start = i;
    }
}

maxtext_score score_of(const std::vector<maxtext_step>& steps) {
  maxtext_score out;
  int with_tflops = 0, with_tokens = 0;
  for (const auto& s : steps) {
    if (!s.scored())
      continue;
    ++out.scored;
    out.step_ms += *s.seconds * 1000;
    if (s.tflops_per_device) {
      ++with_tflops;
      out.tflops_per_device += *s.tflops_per_device;
    }
    if (s.tokens_per_s_per_device) {
      ++with_tokens;
      out.tokens_per_s_per_device += *s.tokens_per_s_per_device;
    }
  }
  if (out.scored)
    out.step_ms /= out.scored;
  if (with_tflops)
    out.tflops_per_device /= with_tflops;
  if (with_tokens)
    out.tokens_per_s_per_device /= with_tokens;
  return out;
}

} // namespace paratune
