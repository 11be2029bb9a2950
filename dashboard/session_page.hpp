#pragma once

#include <string>

#include "dashboard/session_view.hpp"

namespace paratune {

/// `/session/<id>`: the job (name, model, cluster, GPUs), state, trials
/// done and best so far; then the panels (session_panels: the answer and
/// the charts); the trial table (trial with the change from its parent
/// under it, the keys that varied, pool, status, TFLOP/s/GPU, MFU in
/// percent, peak memory, stop reason); and each trial's diagnosis, failure
/// and reasoning. The server writes the header and the panels; the inline
/// script (session_script) fills the table and the notes from the
/// session's JSON, and refreshes them and the panels while it runs.
std::string session_page(const session_view& v, const std::string& panels_html,
                         const std::string& nonce);

/// `/api/sessions/<id>/panels`: what the page opens on, as an HTML
/// fragment: the answer (report/answer_html, as in the HTML report), then
/// the charts (report/charts.hpp's report_charts, the report's own SVG),
/// the live per-iteration throughput of running trials first while any run.
std::string session_panels(const session_view& v);

} // namespace paratune
