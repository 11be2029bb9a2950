#include "report/markdown_report.hpp"

#include <fmt/format.h>

#include "core/text.hpp"

namespace paratune {

std::string markdown_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\n': case '\r': out += ' '; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '#':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// A relative file name as a link target: no spaces or parentheses to end it.
std::string link_target(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == ' ') out += "%20";
    else if (c == '(') out += "%28";
    else if (c == ')') out += "%29";
    else out += c;
  }
  return out;
}

void header(std::string& out, const session_summary& s) {
  out += "# paratune report: " + markdown_escape(s.job.job_name) + "\n\n| | |\n|---|---|\n";
  for (const auto& [label, value] : header_fields(s))
    out += "| " + label + " | " + markdown_escape(value) + " |\n";
}

void decision_entry(std::string& out, const decision& d) {
  out += fmt::format("\n### Trial {}: {}\n\n", d.trial,
                     markdown_escape(d.change.empty() ? "(no proposal recorded)" : d.change));
  if (d.proposed) {
    out += "- **Chosen because:** " + markdown_escape(d.why);
    if (!d.health.empty())
      out += " (health: " + markdown_escape(d.health) + ")";
    out += "\n";
    if (d.predicted_tflops > 0)
      out += fmt::format("- **Predicted:** {:.1f} TFLOP/s/GPU\n", d.predicted_tflops);
    if (d.retry_of > 0)
      out += fmt::format("- **Retry of:** trial {}\n", d.retry_of);
  }
  if (!d.pool.empty())
    out += "- **Pool:** " + markdown_escape(d.pool) + "\n";
  out += "- **Outcome:** " + markdown_escape(outcome_sentence(d)) + "\n";
  if (d.diagnosed)
    out += fmt::format("- **Diagnosis:** {} ({}, confidence {}%)\n", markdown_escape(d.diagnosis),
                       to_string(d.failure), d.confidence);
  if (d.proposed && !d.reasoning.empty() && d.reasoning != d.why) {
    out += "\n";
    for (const auto& line : split(d.reasoning, '\n'))
      out += "> " + markdown_escape(line) + "\n";
  }
}

void trials_table(std::string& out, const session_summary& s) {
  const auto columns = trial_table_columns();
  out += "\n## Trials\n\n|";
  for (const auto& c : columns)
    out += " " + c + " |";
  out += "\n|";
  for (size_t i = 0; i < columns.size(); ++i)
    out += i == 0 || i >= 3 ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : s.trials) {
    out += "|";
    for (const auto& cell : trial_table_cells(r))
      out += " " + markdown_escape(cell) + " |";
    out += "\n";
  }
}

void charts(std::string& out, const markdown_charts& c) {
  out += "\n## Charts\n\n";
  if (c.mfu_file.empty()) {
    out += "*The charts are omitted on standard output: write the report to a file with "
           "`-o FILE.md` to get them as SVG files beside it.*\n";
    return;
  }
  out += "![MFU per trial](" + link_target(c.mfu_file) + ")\n\n";
  out += "![Predicted against measured throughput](" + link_target(c.throughput_file) + ")\n";
}

} // namespace

std::string render_markdown(const session_report& r, const markdown_charts& c) {
  std::string out;
  header(out, r.summary);
  out += "\n## Decisions\n";
  if (r.decisions.empty())
    out += "\nNo trial ran.\n";
  for (const auto& d : r.decisions)
    decision_entry(out, d);
  trials_table(out, r.summary);
  charts(out, c);
  out += "\n## Model\n\n";
  for (const auto& sentence : model_sentences(r.summary.model))
    out += "- " + markdown_escape(sentence) + "\n";
  out += "\n## Full run\n\n";
  for (const auto& sentence : full_run_sentences(r.summary))
    out += "- " + markdown_escape(sentence) + "\n";
  return out;
}

} // namespace paratune
