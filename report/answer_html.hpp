#pragma once

#include <string>

#include "report/session_summary.hpp"

namespace paratune {

/// The answer (report/session_answer) as an HTML section, the same in the
/// HTML report and on the dashboard's session page: `section#answer` with
/// `dl.answer-figures` (best trial, throughput, MFU in percent, peak
/// memory, gains; each `dd` with its `data-figure`), `table.best-config`
/// (one row per key), `pre.command` (the environment as `export` lines,
/// then the Megatron-LM arguments) and `ul.full-run`. Every text is
/// HTML-escaped. Without a measured trial, a paragraph saying so.
std::string answer_html(const session_summary& s);
/// The CSS the section needs, in the page's greys.
const char* answer_style();

} // namespace paratune
