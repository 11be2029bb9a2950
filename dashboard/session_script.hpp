#pragma once

namespace paratune {

/// The session page's inline script. It reads `/api/sessions/<id>` and
/// `/api/sessions/<id>/mfu.svg` (the id from `#session`'s data-session),
/// builds the trial table (`#trials tbody`: one `tr.trial` per trial, with
/// data-trial, data-status and, when measured, data-tflops holding the
/// pool's number as JavaScript prints it), the trials' notes (`#notes`:
/// diagnosis, failure, reasoning) and the chart (`#chart`), and does it
/// again every 2 s while the session runs. Strings from the pool reach the
/// page only as text nodes (textContent), never as markup; the chart is
/// parsed as SVG, where nothing runs.
const char* session_script();

} // namespace paratune
