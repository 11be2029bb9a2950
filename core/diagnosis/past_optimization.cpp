#include "core/diagnosis/past_optimization.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/text.hpp"

namespace paratune {

namespace {

// "model=8,data=8,seq=8" or "tp=8,pp=1" -> key -> number (others ignored).
std::map<std::string, double> numeric_pairs(const std::string& text) {
  std::map<std::string, double> out;
  for (const auto& item : split(text, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      continue;
    const double v = ordinal_value(item.substr(eq + 1));
    if (v >= 0)
      out[item.substr(0, eq)] = v;
  }
  return out;
}

std::string family_of(const std::string& hardware) {
  // "tpu-v5p" -> "tpu", "dgx-a100-80g" -> "dgx"
  return hardware.substr(0, hardware.find('-'));
}

double closeness(double a, double b, double scale) {
  if (a <= 0 || b <= 0)
    return 0;
  return std::exp(-std::fabs(std::log(a / b)) / scale);
}

} // namespace

double ordinal_value(const std::string& value) {
  if (value == "false" || value == "none")
    return 0;
  if (value == "true" || value == "selective")
    return 1;
  if (value == "full")
    return 2;
  try {
    std::size_t used = 0;
    const double v = std::stod(value, &used);
    return used == value.size() ? v : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

double job_similarity(const past_optimization& r, const experiment_spec& exp,
                      bottleneck_class b) {
  if (r.platform != to_string(exp.platform))
    return 0;
  double s = 0;
  if (r.hardware == exp.cluster.name)
    s += 0.3;
  else if (family_of(r.hardware) == family_of(exp.cluster.name))
    s += 0.15;
  s += 0.25 * closeness(r.params_billion, exp.model.parameters() / 1e9, 1.0);
  s += 0.15 * closeness(r.devices, exp.devices(), 2.0);
  if (r.bottleneck == to_string(b))
    s += 0.3;
  return std::min(1.0, s);
}

int change_agreement(const past_optimization& r, const std::vector<std::string>& grown,
                     const std::vector<std::string>& shrunk) {
  const auto before = numeric_pairs(r.before);
  const auto after = numeric_pairs(r.after);
  int same = 0, opposite = 0;
  auto direction = [&](const std::string& key) {
    auto b = before.find(key), a = after.find(key);
    double from = b == before.end() ? 1 : b->second, to = a == after.end() ? 1 : a->second;
    return to > from ? 1 : to < from ? -1 : 0;
  };
  for (const auto& k : grown) {
    const int d = direction(k);
    same += d > 0;
    opposite += d < 0;
  }
  for (const auto& k : shrunk) {
    const int d = direction(k);
    same += d < 0;
    opposite += d > 0;
  }
  // The record made the same change only when every key moved its way.
  if (opposite > 0)
    return -1;
  return same > 0 && same == int(grown.size() + shrunk.size()) ? 1 : 0;
}

std::vector<history_match> match_history(const std::vector<past_optimization>& records,
                                         const experiment_spec& exp, bottleneck_class b,
                                         const std::vector<std::string>& grown,
                                         const std::vector<std::string>& shrunk) {
  std::vector<history_match> out;
  for (const auto& r : records) {
    history_match m{&r, job_similarity(r, exp, b), change_agreement(r, grown, shrunk)};
    // A record is worth citing when the job is alike and the change points
    // the same way; one that went the other way is not evidence for it.
    if (m.similarity >= 0.5 && m.agreement > 0)
      out.push_back(m);
  }
  std::stable_sort(out.begin(), out.end(), [](const history_match& a, const history_match& b) {
    return a.similarity > b.similarity;
  });
  return out;
}

} // namespace paratune
