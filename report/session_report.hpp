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

/// The trials table: the trial, each configuration key that varies across
/// the session (report/chart_points' varying_keys) as a column of its own,
/// the status and the measurements (MFU in percent); per row, the change
/// from its parent and, for an exploration, what it was predicted against,
/// as a second line.
struct trial_table {
  std::vector<std::string> columns;
  std::vector<bool> numeric;  ///< per column: right-aligned
  struct row {
    int trial = 0;
    std::vector<std::string> cells;
    std::string change;       ///< the proposal's change; empty for none
    bool exploration = false;
    std::string exploration_note;  ///< "exploration: predicted 140.0 TFLOP/s/GPU, below ..."
  };
  std::vector<row> rows;
};
trial_table trial_table_of(const session_summary& s);

/// Why an exploration was proposed, in words: its prediction against the
/// best measured before it; empty for a trial that is not one.
std::string exploration_note(const trial_row& r);

/// What happened to a trial, in one sentence ("stopped early (stable):
/// 235.4 TFLOP/s/GPU, MFU 75.5%, peak 61234 MiB; the last 5 iterations ...").
std::string outcome_sentence(const decision& d);

/// The full-run section's sentences (best, first, saved, tuning spent, the
/// baseline and its source), or the one saying why there is none.
std::vector<std::string> full_run_sentences(const session_summary& s);

} // namespace paratune
