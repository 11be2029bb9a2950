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

/// The TPU session as it stands (session_ledger::tpu_progress): its runs
/// so far, state running until its end is stored; none for a GPU session.
/// Throws wire::decode_error for a record that does not decode.
std::optional<wire::tpu_session_end> tpu_progress_of(const std::vector<wire::envelope>& history);

/// The session's end as its ledger holds it (session_ledger::tpu_progress),
/// once its tpu_session_end is stored; none before, or for a GPU session.
/// Throws wire::decode_error for a record that does not decode.
std::optional<wire::tpu_session_end> tpu_end_of(const std::vector<wire::envelope>& history);

/// The run of `trial` in `end`, or null.
const wire::tpu_trial_row* tpu_row_of(const wire::tpu_session_end& end, int trial);

/// Whether a run is still going: started, not ended, no error (rows older
/// than started_ms never are).
bool tpu_run_in_progress(const wire::tpu_trial_row& t);

/// The run the fastest is compared with: the job's own mesh, first
/// measured (a retry of it counts); in records older than job_mesh, the
/// first measured run. Null when there is none: the job's mesh failed, is
/// still running or was not run (first_mesh_trial may start elsewhere).
const wire::tpu_trial_row* tpu_baseline_of(const wire::tpu_session_end& end);

/// The baseline's step time over the fastest run's; 0 when either is missing.
double tpu_speedup(const wire::tpu_session_end& end);

/// What the baseline is, in words: "the job's own mesh", or "the first
/// measured run" in older records.
std::string tpu_baseline_name(const wire::tpu_session_end& end);

/// How the fastest run compares with the baseline, as the answer says it:
/// "x1.32 over the job's own mesh, trial 1"; "the job's own mesh: no other
/// mesh was faster" when the fastest is the baseline (x1.00 would read as a
/// measured tie); or why there is nothing to compare with: "the job's own
/// mesh failed in trial 1: ...", "... is still running in trial 1: ...",
/// "... (data=4,model=4) was not run: ...". Empty when no run was measured.
std::string tpu_gain_text(const wire::tpu_session_end& end);

/// The chip-hours every run of the session spent (its logged steps' times
/// x the slice's chips), as a GPU session's GPU-hours.
double tpu_chip_hours(const wire::tpu_session_end& end);

/// {session, state, job_mesh, chip_hours, trials[{trial, mesh, step_time_ms,
/// error, bottleneck, next, ..., mfu, chip_hours}], best{trial, mesh,
/// step_time_ms, mfu, speedup, baseline_trial, gain}}; `best` only when a
/// run was measured (speedup and baseline_trial 0 without a baseline; gain:
/// tpu_gain_text).
nlohmann::json tpu_report_json(const std::string& session, const wire::tpu_session_end& end);

/// The line `tune` and `watch` end a TPU session with, from
/// tpu_report_json's object: "best: trial 3, mesh data=4,model=4, 812 ms per
/// step, MFU 41.3% (x1.32 over the job's own mesh, trial 1)" (no MFU for
/// older records). Empty when no run was measured.
std::string tpu_best_line(const nlohmann::json& report);

/// The report as markdown: the answer first (best mesh, its step time and
/// speedup), then a table of the runs. Text from the pool is escaped.
std::string render_tpu_markdown(const std::string& session, const wire::tpu_session_end& end);

/// The answer as an HTML paragraph: the best mesh, its step time and
/// speedup, or that no run was measured. Text from the pool is escaped.
std::string tpu_answer_html(const wire::tpu_session_end& end);

/// The runs as an HTML table (trial, mesh, step or failure, bottleneck,
/// next, pool and retry); a run still going says "running".
std::string tpu_runs_table_html(const wire::tpu_session_end& end);

/// The same as one self-contained HTML page (no script, no URL).
std::string render_tpu_html(const std::string& session, const wire::tpu_session_end& end);

} // namespace paratune
