#include "report/parameter_importance.hpp"

#include <algorithm>
#include <map>

#include "core/training_config.hpp"
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
  key_importance k{key, {key}, 0, 0, int(groups.size()), true};
  const double k_levels = double(groups.size());
  if (n - k_levels < 1) {
    k.estimable = false;
    return k;
  }
  const double ms_within = (ss_total - ss_between) / (n - k_levels);
  const double denominator = ss_total + ms_within;
  if (denominator > 0)
    k.effect = std::clamp((ss_between - (k_levels - 1) * ms_within) / denominator, 0.0, 1.0);
  return k;
}

/// Whether `a` and `b` split the rows the same way: two rows share a value
/// of `a` exactly when they share one of `b`.
bool changed_together(const std::vector<const trial_row*>& rows, const std::string& a,
                      const std::string& b) {
  std::map<std::string, std::string> a_to_b, b_to_a;
  for (const auto* r : rows) {
    const auto va = value_of(r->config, a), vb = value_of(r->config, b);
    if (a_to_b.try_emplace(va, vb).first->second != vb)
      return false;
    if (b_to_a.try_emplace(vb, va).first->second != va)
      return false;
  }
  return true;
}

/// Canonical key order (the parallel sizes first); unknown keys after, by name.
std::vector<std::string> canonical_order(std::vector<std::string> keys) {
  const auto rank = [](const std::string& k) {
    const auto& all = config_keys();
    return size_t(std::find(all.begin(), all.end(), k) - all.begin());
  };
  std::stable_sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  return keys;
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
  // Each key joins the first group whose keys it always changed with.
  std::vector<std::vector<std::string>> groups;
  for (const auto& key : canonical_order(varying_keys(s))) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& members) {
      return changed_together(rows, members.front(), key);
    });
    if (g == groups.end())
      groups.push_back({key});
    else
      g->push_back(key);
  }
  double total = 0;
  for (const auto& members : groups) {
    auto k = omega_squared_of(rows, members.front());
    k.keys = members;
    k.key.clear();
    for (const auto& m : members)
      k.key += (k.key.empty() ? "" : " + ") + m;
    if (k.estimable)
      total += k.effect;
    out.keys.push_back(std::move(k));
  }
  if (total > 0)
    for (auto& k : out.keys)
      k.share = k.estimable ? k.effect / total : 0;
  std::stable_sort(out.keys.begin(), out.keys.end(),
                   [](const key_importance& a, const key_importance& b) {
                     return a.effect > b.effect;
                   });
  return out;
}

} // namespace paratune
