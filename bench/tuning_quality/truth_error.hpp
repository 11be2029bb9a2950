#pragma once

// How far the predictor (the calibrated analytic model the reasoner uses)
// is from the simulated cluster's hidden truth over a scenario's search
// space: the error a tuner has to overcome with measurements.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "bench/tuning_quality/scenario.hpp"
#include "core/perf/perf_model.hpp"

namespace paratune::bench {

struct truth_error {
  int configs = 0;              ///< valid configurations of the space
  int true_fits = 0;            ///< of those, fit on the simulated cluster
  double time_mape = 0;         ///< mean |predicted - true| / true iteration time (true fits)
  double time_bias = 0;         ///< mean (predicted - true) / true
  double time_max = 0;          ///< largest |error|
  /// Mean |log error - its mean|: what is left once a single measurement
  /// has calibrated the cluster-wide bias away (the part that reorders).
  double time_spread = 0;
  /// Kendall tau of the predicted order of the true top 10 parallel
  /// splits (tp, pp, cp, ep, vpp, micro batch, recomputation; each split's
  /// best flag variant), and Spearman rho of the same. Flag variants of one
  /// split are often within 0.1% of each other, so ranking them would
  /// measure noise.
  double top10_kendall = 0;
  double top10_spearman = 0;
  bool best_matches = false;    ///< the predictor's best (among its fits) is the true best
  double predicted_best_share = 0; ///< true throughput of the predictor's best / optimum
  double memory_mape = 0;       ///< mean |predicted - true| / true peak memory
  int verdict_mismatches = 0;   ///< predicted fit verdict (with margin) != true verdict
};

namespace detail {

inline std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<int> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size(); ++i)
    r[order[i]] = double(i);
  return r;
}

inline double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const auto ra = ranks(a), rb = ranks(b);
  const double n = double(a.size());
  double d2 = 0;
  for (size_t i = 0; i < a.size(); ++i)
    d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
  return n > 1 ? 1 - 6 * d2 / (n * (n * n - 1)) : 1;
}

inline double kendall(const std::vector<double>& a, const std::vector<double>& b) {
  int concordant = 0, discordant = 0;
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = i + 1; j < a.size(); ++j) {
      const double s = (a[i] - a[j]) * (b[i] - b[j]);
      concordant += s > 0;
      discordant += s < 0;
    }
  const int pairs = concordant + discordant;
  return pairs > 0 ? double(concordant - discordant) / pairs : 1;
}

} // namespace detail

/// The parallel split of a configuration: what changes the work per GPU.
inline std::string split_key(const training_config& c) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%d/%d/%d/%d/%d/%d/%d/%d", c.tp, c.pp, c.cp, c.ep, c.vpp, c.mbs,
                int(c.recompute), c.recompute_layers);
  return buf;
}

inline truth_error measure_truth_error(const scenario& s) {
  truth_error e;
  const auto& ctx = s.context;
  e.configs = int(s.space.size());
  std::vector<std::pair<double, int>> by_truth; // true tflops, index
  double best_pred = 0;
  int best_pred_index = -1;
  double mem_sum = 0;
  std::vector<double> log_errors;
  for (size_t i = 0; i < s.space.size(); ++i) {
    const auto p = predict(ctx.model, ctx.cluster, ctx.world_size, s.space[i], ctx.prec);
    const auto& t = s.truth[i];
    e.verdict_mismatches += p.fits == t.out_of_memory;
    mem_sum += std::abs(p.peak_memory_mib / t.truth.peak_memory_mib - 1);
    if (p.fits && p.tflops_per_gpu > best_pred) {
      best_pred = p.tflops_per_gpu;
      best_pred_index = int(i);
    }
    if (t.out_of_memory)
      continue;
    ++e.true_fits;
    const double err = p.iteration_time_s / t.truth.iteration_time_s - 1;
    e.time_mape += std::abs(err);
    e.time_bias += err;
    e.time_max = std::max(e.time_max, std::abs(err));
    log_errors.push_back(std::log1p(err));
    by_truth.emplace_back(t.truth.tflops_per_gpu, int(i));
  }
  std::sort(by_truth.rbegin(), by_truth.rend());
  std::set<std::string> splits;
  std::vector<std::pair<double, int>> best_per_split;
  for (const auto& [tflops, i] : by_truth)
    if (splits.insert(split_key(s.space[i])).second)
      best_per_split.emplace_back(tflops, i);
  e.memory_mape = e.configs > 0 ? mem_sum / e.configs : 0;
  if (e.true_fits > 0) {
    e.time_mape /= e.true_fits;
    e.time_bias /= e.true_fits;
    const double mean = std::accumulate(log_errors.begin(), log_errors.end(), 0.0)
                        / double(log_errors.size());
    for (double x : log_errors)
      e.time_spread += std::abs(x - mean) / double(log_errors.size());
  }
  std::vector<double> truth_top, pred_top;
  for (size_t i = 0; i < best_per_split.size() && i < 10; ++i) {
    const int k = best_per_split[i].second;
    truth_top.push_back(best_per_split[i].first);
    pred_top.push_back(
      predict(ctx.model, ctx.cluster, ctx.world_size, s.space[k], ctx.prec).tflops_per_gpu);
  }
  e.top10_kendall = detail::kendall(truth_top, pred_top);
  e.top10_spearman = detail::spearman(truth_top, pred_top);
  e.best_matches = best_pred_index == s.optimum;
  if (best_pred_index >= 0 && s.optimum_tflops > 0) {
    const auto& t = s.truth[best_pred_index];
    e.predicted_best_share = t.out_of_memory ? 0 : t.truth.tflops_per_gpu / s.optimum_tflops;
  }
  return e;
}

} // namespace paratune::bench
