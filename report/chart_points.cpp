#include "report/chart_points.hpp"

#include <algorithm>
#include <charconv>

#include "report/parameter_importance.hpp"

namespace paratune {

trial_chart_data trial_chart_points(const session_summary& s, per_trial_metric metric) {
  trial_chart_data d;
  double best = -1;
  for (const auto& r : s.trials) {
    d.last_trial = std::max(d.last_trial, r.index);
    if (r.measured()) {
      const double v = metric == per_trial_metric::mfu_pct ? 100 * r.mfu : r.tflops_per_gpu;
      d.measured.push_back({r.index, v});
      best = std::max(best, v);
    }
    if (r.status == trial_status::failed)
      d.failed.push_back(r.index);
    if (r.status == trial_status::stopped)
      (r.stop == stop_reason::cancelled ? d.cancelled : d.stopped).push_back(r.index);
    if (best >= 0)
      d.best_so_far.push_back({r.index, best});
  }
  return d;
}

throughput_chart_data throughput_chart_points(const session_summary& s) {
  throughput_chart_data d;
  for (const auto& r : s.trials)
    if (r.measured() && r.predicted_tflops > 0)
      d.points.push_back({r.index, r.predicted_tflops, r.tflops_per_gpu});
  return d;
}

std::string value_of(const wire::config_map& c, const std::string& key) {
  const auto it = c.find(key);
  return it == c.end() ? "-" : it->second;
}

std::vector<std::string> varying_keys(const session_summary& s) {
  std::vector<std::string> keys;
  for (const auto& r : s.trials)
    for (const auto& [k, _] : r.config)
      if (std::find(keys.begin(), keys.end(), k) == keys.end())
        keys.push_back(k);
  std::vector<std::string> out;
  for (const auto& k : keys)
    if (levels_of(s.trials, k).size() > 1)
      out.push_back(k);
  return out;
}

namespace {

bool number_of(const std::string& text, double& out) {
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc{} && at == end;
}

} // namespace

bool all_numeric(const std::vector<std::string>& values) {
  double v = 0;
  return std::all_of(values.begin(), values.end(),
                     [&](const std::string& t) { return number_of(t, v); });
}

std::vector<std::string> levels_of(const std::vector<trial_row>& trials, const std::string& key) {
  std::vector<std::string> levels;
  for (const auto& r : trials) {
    auto v = value_of(r.config, key);
    if (std::find(levels.begin(), levels.end(), v) == levels.end())
      levels.push_back(std::move(v));
  }
  if (all_numeric(levels)) {
    std::sort(levels.begin(), levels.end(), [](const std::string& a, const std::string& b) {
      double x = 0, y = 0;
      number_of(a, x);
      number_of(b, y);
      return x < y;
    });
  } else {
    std::sort(levels.begin(), levels.end());
  }
  return levels;
}

parallel_chart_data parallel_chart_points(const session_summary& s) {
  parallel_chart_data d;
  std::vector<trial_row> measured;
  for (const auto& r : s.trials)
    if (r.measured())
      measured.push_back(r);
  for (const auto& k : varying_keys(s))
    d.axes.push_back({k, levels_of(measured, k)});
  for (const auto& r : measured) {
    parallel_chart_data::line l{r.index, {}, r.tflops_per_gpu};
    for (const auto& a : d.axes) {
      const auto v = value_of(r.config, a.key);
      l.level.push_back(int(std::find(a.levels.begin(), a.levels.end(), v) - a.levels.begin()));
    }
    d.min_tflops = d.lines.empty() ? r.tflops_per_gpu : std::min(d.min_tflops, r.tflops_per_gpu);
    d.max_tflops = std::max(d.max_tflops, r.tflops_per_gpu);
    d.lines.push_back(std::move(l));
  }
  return d;
}

memory_chart_data memory_chart_points(const session_summary& s) {
  memory_chart_data d;
  for (const auto& r : s.trials) {
    d.limit_mib = std::max(d.limit_mib, r.memory_limit_mib);
    if (r.measured() && r.peak_memory_mib > 0)
      d.points.push_back({r.index, r.peak_memory_mib, r.tflops_per_gpu});
  }
  if (d.limit_mib <= 0)
    d.limit_mib = 1024 * s.job.cluster.hbm_gib;
  return d;
}

namespace {

nlohmann::json trial_chart_json(const trial_chart_data& d, const char* value_name) {
  const auto pairs = [&](const std::vector<trial_chart_data::point>& points) {
    auto a = nlohmann::json::array();
    for (const auto& p : points)
      a.push_back({{"trial", p.trial}, {value_name, p.value}});
    return a;
  };
  return {{"measured", pairs(d.measured)},
          {"best_so_far", pairs(d.best_so_far)},
          {"failed", d.failed},
          {"stopped", d.stopped},
          {"cancelled", d.cancelled}};
}

} // namespace

nlohmann::json charts_json(const session_summary& s) {
  auto throughput = nlohmann::json::array();
  for (const auto& p : throughput_chart_points(s).points)
    throughput.push_back(
        {{"trial", p.trial}, {"predicted_tflops", p.predicted}, {"measured_tflops", p.measured}});
  const auto par = parallel_chart_points(s);
  auto axes = nlohmann::json::array();
  for (const auto& a : par.axes)
    axes.push_back({{"key", a.key}, {"levels", a.levels}});
  auto lines = nlohmann::json::array();
  for (const auto& l : par.lines)
    lines.push_back({{"trial", l.trial}, {"level", l.level}, {"tflops_per_gpu", l.tflops}});
  const auto mem = memory_chart_points(s);
  auto mem_points = nlohmann::json::array();
  for (const auto& p : mem.points)
    mem_points.push_back(
        {{"trial", p.trial}, {"peak_memory_mib", p.peak_mib}, {"tflops_per_gpu", p.tflops}});
  const auto imp = parameter_importance(s);
  auto importance = nlohmann::json::array();
  for (const auto& k : imp.keys)
    importance.push_back(
        {{"key", k.key}, {"keys", k.keys}, {"effect", k.effect}, {"share", k.share},
         {"levels", k.levels}, {"estimable", k.estimable}});
  return {{"mfu", trial_chart_json(trial_chart_points(s, per_trial_metric::mfu_pct), "mfu_pct")},
          {"trials", trial_chart_json(trial_chart_points(s, per_trial_metric::tflops_per_gpu),
                                      "tflops_per_gpu")},
          {"throughput", {{"points", std::move(throughput)}}},
          {"parallel", {{"axes", std::move(axes)}, {"lines", std::move(lines)}}},
          {"memory", {{"points", std::move(mem_points)}, {"limit_mib", mem.limit_mib}}},
          {"importance",
           {{"method", importance_method}, {"measured", imp.measured}, {"keys", std::move(importance)}}}};
}

} // namespace paratune
