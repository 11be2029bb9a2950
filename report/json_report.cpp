#include "report/json_report.hpp"

#include "report/chart_points.hpp"
#include "report/session_answer.hpp"

namespace paratune {

namespace {

nlohmann::json decision_json(const decision& d) {
  nlohmann::json j = {{"trial", d.trial}, {"change", d.change}};
  if (d.proposed) {
    j["health"] = d.health;
    j["why"] = d.why;
    j["reasoning"] = d.reasoning;
    j["predicted_tflops"] = d.predicted_tflops > 0 ? nlohmann::json(d.predicted_tflops) : nullptr;
    if (d.retry_of > 0)
      j["retry_of"] = d.retry_of;
  }
  j["pool"] = d.pool;
  if (d.finished) {
    j["status"] = to_string(d.status);
    j["tflops_per_gpu"] = d.tflops_per_gpu;
    j["mfu"] = d.mfu;
    j["peak_memory_mib"] = d.peak_memory_mib;
    if (d.stop != stop_reason::none)
      j["stop"] = to_string(d.stop);
    j["outcome"] = d.outcome;
  } else {
    j["status"] = nullptr;
  }
  if (d.diagnosed)
    j["diagnosis"] = {{"kind", to_string(d.failure)},
                      {"confidence", d.confidence},
                      {"summary", d.diagnosis}};
  return j;
}

} // namespace

nlohmann::json report_json(const session_report& r) {
  const auto& s = r.summary;
  auto j = to_json(s);
  j["answer"] = answer_json(s);  // first in meaning: the best configuration, its command, its gain
  j["job"] = {{"name", s.job.job_name},
              {"model", s.job.model.name},
              {"cluster", s.job.cluster.name},
              {"world_size", s.job.world_size},
              {"trials", s.job.trials}};
  j["decisions"] = nlohmann::json::array();
  for (const auto& d : r.decisions)
    j["decisions"].push_back(decision_json(d));
  j["charts"] = charts_json(s);
  j["model"] = model_json(s.model);
  return j;
}

} // namespace paratune
