#include "report/html_report.hpp"

#include <fmt/format.h>

#include "report/charts.hpp"
#include "report/answer_html.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

namespace {

// Greys and one accent only: the chart colours stay unique to the charts,
// so a screenshot's pixels of those colours are the charts' own.
constexpr const char* style = R"(
body { font-family: "DejaVu Sans", sans-serif; color: #222; max-width: 960px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
dl.header { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
dl.header dt { font-weight: bold; } dl.header dd { margin: 0; }
ul.decision { margin: 0; padding-left: 20px; font-size: 14px; }
.reasoning { white-space: pre-wrap; font-size: 12px; color: #555; background: #f6f6f6; padding: 6px 10px; margin: 6px 0 0; }
details { font-size: 13px; margin-top: 4px; } summary { cursor: pointer; color: #555; }
.charts svg { display: block; margin: 12px 0; border: 1px solid #ddd; }\ntable.trials td:first-child { min-width: 16em; }
.change { font-size: 11px; color: #555; text-align: left; } .change.exploration { font-style: italic; }
)";

std::string esc(const std::string& s) { return markup_escape(s); }

void html_header(std::string& out, const session_summary& s) {
  out += "<h1>paratune report: " + esc(s.job.job_name) + "</h1>\n<dl class=\"header\">\n";
  for (const auto& [label, value] : header_fields(s))
    out += "<dt>" + esc(label) + "</dt><dd>" + esc(value) + "</dd>\n";
  out += "</dl>\n";
}

void html_decision_entry(std::string& out, const decision& d, const std::string& exploration) {
  out += fmt::format("<section class=\"decision\" id=\"trial-{}\">\n<h3>Trial {}: {}</h3>\n"
                     "<ul class=\"decision\">\n",
                     d.trial, d.trial, esc(d.change.empty() ? "(no proposal recorded)" : d.change));
  if (d.proposed) {
    out += "<li><b>Chosen because:</b> " + esc(d.why);
    if (!d.health.empty())
      out += " (health: " + esc(d.health) + ")";
    out += "</li>\n";
    if (d.predicted_tflops > 0)
      out += fmt::format("<li><b>Predicted:</b> {:.1f} TFLOP/s/GPU</li>\n", d.predicted_tflops);
    if (d.retry_of > 0)
      out += fmt::format("<li><b>Retry of:</b> trial {}</li>\n", d.retry_of);
  }
  if (!exploration.empty())
    out += "<li class=\"exploration\"><b>Exploration:</b> "
           + esc(exploration.substr(exploration.find(':') + 2)) + "</li>\n";
  if (!d.pool.empty())
    out += "<li><b>Pool:</b> " + esc(d.pool) + "</li>\n";
  out += "<li class=\"outcome\"><b>Outcome:</b> " + esc(outcome_sentence(d)) + "</li>\n";
  if (d.diagnosed)
    out += fmt::format("<li class=\"diagnosis\"><b>Diagnosis:</b> {} ({}, confidence {}%)</li>\n",
                       esc(d.diagnosis), to_string(d.failure), d.confidence);
  out += "</ul>\n";
  // Folded: the chain of every trial would push the table and charts far down.
  if (d.proposed && !d.reasoning.empty() && d.reasoning != d.why)
    out += "<details><summary>The analysis's reasoning</summary><p class=\"reasoning\">"
           + esc(d.reasoning) + "</p></details>\n";
  out += "</section>\n";
}

void html_trials_table(std::string& out, const session_summary& s) {
  const auto t = trial_table_of(s);
  out += "<h2>Trials</h2>\n<p>Each trial's configuration (the keys that varied) and result; "
         "under the trial number, the change from its parent.</p>\n<table class=\"trials\">\n<tr>";
  for (const auto& c : t.columns)
    out += "<th>" + esc(c) + "</th>";
  out += "</tr>\n";
  for (const auto& r : t.rows) {
    out += fmt::format("<tr data-trial=\"{}\"{}>", r.trial, r.exploration ? " class=\"exploration\"" : "");
    for (size_t i = 0; i < r.cells.size(); ++i) {
      out += (t.numeric[i] ? "<td class=\"num\">" : "<td>") + esc(r.cells[i]);
      if (i == 0 && !r.change.empty())
        out += "<div class=\"change\">" + esc(r.change) + "</div>";
      if (i == 0 && r.exploration)
        out += "<div class=\"change exploration\">" + esc(r.exploration_note) + "</div>";
      out += "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
}

} // namespace

std::string render_html(const session_report& r) {
  const auto& s = r.summary;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<title>paratune report: " + esc(s.job.job_name) + " (" + esc(s.session) + ")</title>\n";
  out += "<style>" + std::string(style) + std::string(answer_style()) + "</style>\n</head>\n<body>\n";
  html_header(out, s);
  out += answer_html(s);
  out += "<h2>Charts</h2>\n<div class=\"charts\">\n";
  for (const auto& c : report_charts(s))
    out += inline_svg(c.svg);
  out += "</div>\n";
  html_trials_table(out, s);
  out += "<h2>Decisions</h2>\n";
  if (r.decisions.empty())
    out += "<p>No trial ran.</p>\n";
  for (const auto& d : r.decisions) {
    std::string exploration;
    for (const auto& row : s.trials)
      if (row.index == d.trial)
        exploration = exploration_note(row);
    html_decision_entry(out, d, exploration);
  }
  out += "<h2>Model</h2>\n<ul class=\"model\">\n";
  for (const auto& sentence : model_sentences(r.summary.model))
    out += "<li>" + esc(sentence) + "</li>\n";
  out += "</ul>\n</body>\n</html>\n";
  return out;
}

} // namespace paratune
