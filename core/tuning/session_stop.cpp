#include "core/tuning/session_stop.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

namespace paratune {

namespace {

/// A sigma below this is a measured configuration's run-to-run noise at
/// most; it keeps the normal's argument finite.
constexpr double sigma_floor = 1e-4;
/// How many of the best candidates the reason names.
constexpr size_t named_in_reason = 3;

/// P(Z > z): Z standard normal (dof <= 0) or Student-t with dof degrees
/// of freedom.
double upper_tail(double z, double dof) {
  if (dof <= 0)
    return 0.5 * std::erfc(z / std::sqrt(2.0));
  return boost::math::cdf(boost::math::complement(boost::math::students_t(dof), z));
}

} // namespace

double chance_of_gain(const session_stop_candidate& c, double incumbent, double min_gain,
                      double scale, double dof) {
  if (c.predicted_tflops <= 0 || incumbent <= 0)
    return 0;
  const double sigma = std::max(sigma_floor, c.sigma * scale);
  const double z = std::log((1 + min_gain) * incumbent / c.predicted_tflops) / sigma;
  return std::clamp(c.fit_chance, 0.0, 1.0) * upper_tail(z, dof);
}

session_stop_decision decide_stop(const session_stop_policy& policy, const session_stop_inputs& in) {
  session_stop_decision d;
  if (policy.mode == session_stop_mode::budget) {
    d.reason = "stop: budget: every trial of the budget runs";
    return d;
  }
  if (in.incumbent_tflops <= 0) {
    d.reason = "going on: no run has been measured yet";
    return d;
  }
  if (in.checks < session_stop_min_checks) {
    d.reason = fmt::format("going on: the model's error on this session is not known yet ({} of "
                           "{} predictions held against a run)", in.checks,
                           session_stop_min_checks);
    return d;
  }
  std::vector<double> chance(in.candidates.size());
  d.chance_any = 0;
  for (size_t i = 0; i < in.candidates.size(); ++i) {
    chance[i] = chance_of_gain(in.candidates[i], in.incumbent_tflops, policy.min_gain,
                               in.sigma_scale, in.scale_dof);
    d.chance_any = std::max(d.chance_any, chance[i]);
  }
  std::vector<size_t> order(chance.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return chance[a] > chance[b]; });
  for (size_t k = 0; k < order.size() && k < named_in_reason; ++k) {
    d.best_left.push_back(in.candidates[order[k]]);
    d.best_chances.push_back(chance[order[k]]);
  }
  d.stop = d.chance_any <= 1 - policy.confidence;
  d.chances = chance;
  std::string left;
  for (size_t k = 0; k < d.best_left.size(); ++k) {
    const auto& c = d.best_left[k];
    left += fmt::format("{}{}{} expected at {:.1f} TFLOP/s/GPU ({:+.1f}%, +-{:.1f}%), "
                        "{:.1f}% chance of more than {:.1f}%",
                        k ? "; " : "", c.text, c.running ? " (running)" : "", c.predicted_tflops,
                        100 * (c.predicted_tflops / in.incumbent_tflops - 1),
                        100 * c.sigma * in.sigma_scale, 100 * d.best_chances[k],
                        100 * policy.min_gain);
  }
  const auto verdict = fmt::format(
    "the best of {} candidate(s) left has a {:.1f}% chance of beating trial {} ({:.1f} "
    "TFLOP/s/GPU) by more than {:.1f}%, {} the {:.1f}% a {:.0f}% confidence allows (the model's "
    "errors on this session x{:.2f} its own uncertainty)",
    in.candidates.size(), 100 * d.chance_any, in.incumbent_trial, in.incumbent_tflops,
    100 * policy.min_gain, d.stop ? "within" : "above", 100 * (1 - policy.confidence),
    100 * policy.confidence, in.sigma_scale);
  d.reason = (d.stop ? "converged: " : "going on: ") + verdict
             + (left.empty() ? std::string(".") : ". Best left: " + left + ".");
  return d;
}

size_t next_worth_running(const session_stop_decision& d, const session_stop_inputs& in,
                          size_t chosen) {
  if (d.stop || d.chances.size() != in.candidates.size() || chosen >= d.chances.size())
    return chosen;
  size_t best = chosen;
  for (size_t i = 0; i < d.chances.size(); ++i)
    if (!in.candidates[i].running && d.chances[i] > d.chances[best])
      best = i;
  return best;
}

} // namespace paratune
