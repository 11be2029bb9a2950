#include "report/chart_points.hpp"

#include <algorithm>

namespace paratune {

mfu_chart_data mfu_chart_points(const session_summary& s) {
  mfu_chart_data d;
  double best = -1;
  for (const auto& r : s.trials) {
    d.last_trial = std::max(d.last_trial, r.index);
    if (r.measured()) {
      d.measured.push_back({r.index, 100 * r.mfu});
      best = std::max(best, 100 * r.mfu);
    }
    if (r.status == trial_status::failed)
      d.failed.push_back(r.index);
    if (r.status == trial_status::stopped)
      d.stopped.push_back(r.index);
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

nlohmann::json charts_json(const session_summary& s) {
  const auto mfu = mfu_chart_points(s);
  const auto pairs = [](const std::vector<mfu_chart_data::point>& points) {
    auto a = nlohmann::json::array();
    for (const auto& p : points)
      a.push_back({{"trial", p.trial}, {"mfu_pct", p.mfu_pct}});
    return a;
  };
  auto throughput = nlohmann::json::array();
  for (const auto& p : throughput_chart_points(s).points)
    throughput.push_back(
        {{"trial", p.trial}, {"predicted_tflops", p.predicted}, {"measured_tflops", p.measured}});
  return {{"mfu",
           {{"measured", pairs(mfu.measured)},
            {"best_so_far", pairs(mfu.best_so_far)},
            {"failed", mfu.failed},
            {"stopped", mfu.stopped}}},
          {"throughput", {{"points", std::move(throughput)}}}};
}

} // namespace paratune
