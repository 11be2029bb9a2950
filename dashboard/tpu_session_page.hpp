#pragma once

// A TPU session (ASAP's loop, actors/tpu_session) on the dashboard: its
// row on `/`, its page at `/session/<id>`, and its JSON. The page is
// written whole by the server (the runs table is report/tpu_report's); while
// the session runs, its one inline script reloads it every 2 s.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dashboard/session_view.hpp"

namespace paratune {

/// The TPU sessions' table on `/`: id (a link to its page), experiment,
/// model, hardware, state, runs done/budget, best step time and mesh, when
/// it opened. Empty when there are none. Every string from the pool is
/// HTML-escaped.
std::string tpu_sessions_table(const std::vector<tpu_session_view>& views);

/// `/session/<id>` of a TPU session: the experiment (name, model, hardware,
/// state, why it ended, runs, best), the answer, and the runs table.
std::string tpu_session_page(const tpu_session_view& v, const std::string& nonce);

/// `/api/sessions/<id>` of a TPU session: report/tpu_report's JSON (state,
/// trials, best) with `kind` "tpu", `job` (name, model, hardware, budget)
/// and `opened_at`.
nlohmann::json tpu_session_json(const tpu_session_view& v);

/// One line of `/api/sessions`'s `tpu_sessions`: session, job, model,
/// hardware, state, runs_done, runs_budget, best (trial, mesh,
/// step_time_ms, or null), opened_at.
nlohmann::json tpu_session_line_json(const tpu_session_view& v);

} // namespace paratune
