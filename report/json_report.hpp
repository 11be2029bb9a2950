#pragma once

#include <nlohmann/json.hpp>

#include "report/session_report.hpp"

namespace paratune {

/// The report for scripts: the summary's JSON (to_json: session, state,
/// best, gpu_hours, full_run, trials) plus `job` (name, model, cluster,
/// world_size, trials budget), `decisions` (the chain, one object per
/// trial) and `charts` (the points each chart plots: chart_points.hpp).
nlohmann::json report_json(const session_report& r);

} // namespace paratune
