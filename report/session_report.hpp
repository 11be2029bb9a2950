#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/decision_chain.hpp"
#include "report/session_summary.hpp"

namespace paratune {

/// Everything `paratune report` shows of a GPU session, read from its
/// records; the renderers (markdown_report, html_report, json_report) turn
/// it into text without further I/O.
struct session_report {
  session_summary summary;
  std::vector<decision> decisions;
};
session_report report_of(const std::string& session, const std::vector<wire::envelope>& history);

// The pieces every format shows, as plain text (each renderer escapes it).

/// (label, value) lines of the header: session, job, model, cluster, world
/// size, state, trial budget, trials run.
std::vector<std::pair<std::string, std::string>> header_fields(const session_summary& s);

/// The trials table: its column names, and one row of cells per trial.
std::vector<std::string> trial_table_columns();
std::vector<std::string> trial_table_cells(const trial_row& r);

/// What happened to a trial, in one sentence ("stopped early (stable):
/// 235.4 TFLOP/s/GPU, MFU 75.5%, peak 61234 MiB; the last 5 iterations ...").
std::string outcome_sentence(const decision& d);

/// The full-run section's sentences (best, first, saved, tuning spent, the
/// baseline and its source), or the one saying why there is none.
std::vector<std::string> full_run_sentences(const session_summary& s);

} // namespace paratune
