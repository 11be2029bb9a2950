#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "dashboard/session_view.hpp"

namespace paratune {

/// `/api/sessions/<id>`: the session summary's JSON (report's to_json, what
/// `paratune tune --json` prints) with what the page adds: `job` (name,
/// model, cluster, nodes, world_size, trials: the budget), `opened_at`,
/// `running` (trials launched without a result: index, change, pool), and
/// on each trial its `diagnosis` (summary, kind, confidence), `error` and
/// `reasoning` where it has them.
nlohmann::json session_json(const session_view& v);

/// One line of the sessions list: session, job, model, cluster, state,
/// trials_done, trials_budget, best (trial, tflops_per_gpu, mfu, or null),
/// opened_at.
nlohmann::json session_line_json(const session_view& v);

/// `/api/sessions`: {"sessions": [lines, in the order given], "tpu_sessions":
/// [tpu_session_line_json, in the order given]}.
nlohmann::json sessions_json(const std::vector<session_view>& views,
                             const std::vector<tpu_session_view>& tpu_views);

} // namespace paratune
