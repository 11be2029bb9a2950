#include "report/parameter_importance.hpp"

#include <algorithm>
#include <map>

#include "report/chart_points.hpp"

namespace paratune {

namespace {

key_importance omega_squared_of(const std::vector<const trial_row*>& rows, const std::string& key) {
  std::map<std::string, std::pair<int, double>> groups;  // value -> (count, sum)
  double sum = 0;
  for (const auto* r : rows) {
    auto& g = groups[value_of(r->config, key)];
    ++g.first;
    g.second += r->tflops_per_gpu;
    sum += r->tflops_per_gpu;
  }
  const double n = double(rows.size()), mean = sum / n;
  double ss_total = 0, ss_between = 0;
  for (const auto* r : rows)
    ss_total += (r->tflops_per_gpu - mean) * (r->tflops_per_gpu - mean);
  for (const auto& [_, g] : groups) {
    const double d = g.second / g.first - mean;
    ss_between += g.first * d * d;
  }
  key_importance k{key, 0, int(groups.size()), true};
  const double k_levels = double(groups.size());
  if (n - k_levels < 1) {
    k.estimable = false;
    return k;
  }
  const double ms_within = (ss_total - ss_between) / (n - k_levels);
  const double denominator = ss_total + ms_within;
  if (denominator > 0)
    k.share = std::clamp((ss_between - (k_levels - 1) * ms_within) / denominator, 0.0, 1.0);
  return k;
}

} // namespace

importance_result parameter_importance(const session_summary& s) {
  importance_result out;
  std::vector<const trial_row*> rows;
  for (const auto& r : s.trials)
    if (r.measured())
      rows.push_back(&r);
  out.measured = int(rows.size());
  if (rows.size() < 3)
    return out;
  for (const auto& key : varying_keys(s))
    out.keys.push_back(omega_squared_of(rows, key));
  std::stable_sort(out.keys.begin(), out.keys.end(),
                   [](const key_importance& a, const key_importance& b) {
                     return a.share > b.share;
                   });
  return out;
}

} // namespace paratune
