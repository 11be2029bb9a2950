#include "dashboard/dashboard_json.hpp"

#include <cstdio>
#include <ctime>

#include "dashboard/tpu_session_page.hpp"
#include "report/chart_points.hpp"

namespace paratune {

namespace {

nlohmann::json job_json(const session_summary& s) {
  return {{"name", s.job.job_name},
          {"model", s.job.model.name},
          {"cluster", s.job.cluster.name},
          {"nodes", s.job.nodes},
          {"world_size", s.job.world_size},
          {"trials", s.job.trials}};
}

nlohmann::json notes_json(const trial_notes& n) {
  nlohmann::json j = nlohmann::json::object();
  if (n.diagnosis)
    j["diagnosis"] = {{"summary", n.diagnosis->summary},
                      {"kind", to_string(n.diagnosis->kind)},
                      {"confidence", n.diagnosis->confidence}};
  if (!n.error.empty())
    j["error"] = n.error;
  if (!n.reasoning.empty())
    j["reasoning"] = n.reasoning;
  return j;
}

} // namespace


nlohmann::json session_json(const session_view& v) {
  auto j = to_json(v.summary);
  j["job"] = job_json(v.summary);
  j["opened_at"] = utc_json(v.opened_at_ms);
  for (auto& t : j["trials"]) {
    const auto it = v.notes.find(t["index"].get<int>());
    if (it != v.notes.end())
      t.update(notes_json(it->second));
  }
  j["varying_keys"] = varying_keys(v.summary);  // the trial table's configuration columns
  j["running"] = nlohmann::json::array();
  for (const auto& r : v.running)
    j["running"].push_back({{"index", r.index}, {"change", r.change}, {"pool", r.pool}});
  return j;
}

nlohmann::json session_line_json(const session_view& v) {
  const auto& s = v.summary;
  nlohmann::json best = nullptr;
  if (s.best)
    best = {{"trial", s.best->index},
            {"tflops_per_gpu", s.best->tflops_per_gpu},
            {"mfu", s.best->mfu}};
  return {{"session", s.session},
          {"job", s.job.job_name},
          {"model", s.job.model.name},
          {"cluster", s.job.cluster.name},
          {"state", to_string(s.state)},
          {"trials_done", trials_run(s)},
          {"trials_budget", s.job.trials},
          {"best", best},
          {"opened_at", utc_json(v.opened_at_ms)}};
}

nlohmann::json sessions_json(const std::vector<session_view>& views,
                             const std::vector<tpu_session_view>& tpu_views) {
  auto list = nlohmann::json::array();
  for (const auto& v : views)
    list.push_back(session_line_json(v));
  auto tpu_list = nlohmann::json::array();
  for (const auto& v : tpu_views)
    tpu_list.push_back(tpu_session_line_json(v));
  return {{"sessions", list}, {"tpu_sessions", tpu_list}};
}

} // namespace paratune
