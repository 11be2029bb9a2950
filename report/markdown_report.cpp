#include "report/markdown_report.hpp"

#include <fmt/format.h>

#include "core/shell_quote.hpp"
#include "core/text.hpp"
#include "report/session_answer.hpp"

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

void decision_entry(std::string& out, const decision& d, const std::string& exploration) {
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
  if (!exploration.empty())
    out += "- **Exploration:** " + markdown_escape(exploration.substr(exploration.find(':') + 2))
           + "\n";
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

void md_answer(std::string& out, const session_summary& s) {
  out += "\n## Answer\n\n";
  const auto a = answer_of(s);
  if (!a) {
    out += "No trial was measured, so there is no best configuration yet.\n";
    return;
  }
  out += "| | |\n|---|---|\n";
  for (const auto& [label, value] : answer_figures(*a))
    out += "| " + label + " | " + markdown_escape(value) + " |\n";
  if (!a->tie.empty())
    out += "\n" + markdown_escape(a->tie) + "\n";
  // The command before the key table: what a reader copies comes first
  // (the first 40 lines hold it).
  out += "\n### Production command\n\nThe " + framework_title_of(s)
         + " arguments of the best configuration, with the environment its run needs:\n\n```sh\n";
  out += production_command_text(*a) + "```\n";
  const auto rows = [&](const auto& list) {
    for (const auto& [k, v] : list)
      out += "| " + markdown_escape(k) + " | " + markdown_escape(v) + " |\n";
  };
  out += "\n### Best configuration\n\n" + searched_keys_caption(s)
         + "\n\n| key | value |\n|---|---|\n";
  rows(a->parallel);
  rows(a->searched);
  if (!a->other.empty()) {
    out += fmt::format("\n<details><summary>Other keys ({}): the job's or their defaults, "
                       "not searched</summary>\n\n| key | value |\n|---|---|\n",
                       a->other.size());
    rows(a->other);
    out += "\n</details>\n";
  }
  out += "\n### Full run\n\n";
  for (const auto& sentence : full_run_sentences(s))
    out += "- " + markdown_escape(sentence) + "\n";
}

// A cell's second line: the change from the trial's parent, and what an
// exploration was predicted against.
std::string md_second_line(const trial_table::row& r) {
  std::string line = markdown_escape(r.change);
  if (r.exploration)
    line += (line.empty() ? "" : " ") + std::string("*") + markdown_escape(r.exploration_note) + "*";
  return line;
}

void trials_table(std::string& out, const session_summary& s) {
  const auto t = trial_table_of(s);
  out += "\n## Trials\n\nEach trial's configuration (the keys that varied), its result, and "
         "below the trial number the change from its parent.\n\n|";
  for (const auto& c : t.columns)
    out += " " + markdown_escape(c) + " |";
  out += "\n|";
  for (bool n : t.numeric)
    out += n ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : t.rows) {
    out += "|";
    for (size_t i = 0; i < r.cells.size(); ++i) {
      out += " " + markdown_escape(r.cells[i]);
      if (i == 0 && !md_second_line(r).empty())
        out += "<br>" + md_second_line(r);
      out += " |";
    }
    out += "\n";
  }
}

void charts(std::string& out, const markdown_charts& c) {
  out += "\n## Charts\n\n";
  if (c.files.empty()) {
    out += "*The charts are omitted on standard output: write the report to a file with "
           "`-o FILE.md` to get them as SVG files beside it.*\n";
    return;
  }
  for (const auto& f : c.files)
    out += "![" + f.title + "](" + link_target(f.name) + ")\n\n";
}

std::string exploration_of(const session_summary& s, int trial) {
  for (const auto& r : s.trials)
    if (r.index == trial)
      return exploration_note(r);
  return "";
}

} // namespace

std::string render_markdown(const session_report& r, const markdown_charts& c) {
  std::string out;
  header(out, r.summary);
  md_answer(out, r.summary);
  charts(out, c);
  trials_table(out, r.summary);
  out += "\n## Decisions\n";
  if (r.decisions.empty())
    out += "\nNo trial ran.\n";
  for (const auto& d : r.decisions)
    decision_entry(out, d, exploration_of(r.summary, d.trial));
  out += "\n## Model\n\n";
  for (const auto& sentence : model_sentences(r.summary.model))
    out += "- " + markdown_escape(sentence) + "\n";
  return out;
}

} // namespace paratune
