#pragma once

// A TPU session (ASAP's loop on a simulated slice, actors/tpu_session) read
// back from its last record, tpu_session_end: what `tune` prints at its end
// and what `report` writes, in JSON, markdown and HTML.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/wire_types.hpp"

namespace paratune {

/// The session's tpu_session_end, when its records hold one (the last wins).
std::optional<wire::tpu_session_end> tpu_end_of(const std::vector<wire::envelope>& history);

/// The fastest run over the first: first step time / best step time; 0
/// when either was not measured.
double tpu_speedup(const wire::tpu_session_end& end);

/// {session, state, trials[{trial, mesh, step_time_ms, error, bottleneck,
/// next}], best{trial, mesh, step_time_ms, speedup}}; `best` only when a
/// run was measured.
nlohmann::json tpu_report_json(const std::string& session, const wire::tpu_session_end& end);

/// The report as markdown: the answer first (best mesh, its step time and
/// speedup), then a table of the runs. Text from the pool is escaped.
std::string render_tpu_markdown(const std::string& session, const wire::tpu_session_end& end);

/// The same as one self-contained HTML page (no script, no URL).
std::string render_tpu_html(const std::string& session, const wire::tpu_session_end& end);

} // namespace paratune
