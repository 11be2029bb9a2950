#pragma once

#include <string>

#include "dashboard/session_view.hpp"

namespace paratune {

/// `/session/<id>`: the job (name, model, cluster, GPUs), state, trials
/// done and best so far, the trial table (trial, change, pool, status,
/// TFLOP/s/GPU, MFU, peak memory, stop reason), the MFU chart, and each
/// trial's diagnosis, failure and reasoning. The server writes the header
/// and the chart; the inline script (session_script) fills the table and
/// the notes from the session's JSON and keeps them live while it runs.
std::string session_page(const session_view& v, const std::string& chart_svg,
                         const std::string& nonce);

} // namespace paratune
