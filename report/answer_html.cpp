#include "report/answer_html.hpp"

#include "core/shell_quote.hpp"
#include "report/session_answer.hpp"
#include "report/session_report.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

namespace {

// "Gain over the first run" -> "gain-over-the-first-run"
std::string figure_name(const std::string& label) {
  std::string out;
  for (char c : label)
    out += c == ' ' ? '-' : char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

} // namespace

std::string answer_html(const session_summary& s) {
  std::string out = "<section id=\"answer\" class=\"answer\">\n<h2>Answer</h2>\n";
  const auto a = answer_of(s);
  if (!a)
    return out + "<p class=\"no-answer\">No trial was measured yet, so there is no best "
                 "configuration.</p>\n</section>\n";
  out += "<dl class=\"answer-figures\">\n";
  for (const auto& [label, value] : answer_figures(*a))
    out += "<dt>" + markup_escape(label) + "</dt><dd data-figure=\"" + figure_name(label) + "\">"
           + markup_escape(value) + "</dd>\n";
  out += "</dl>\n";
  if (!a->tie.empty())
    out += "<p class=\"tie-break\">" + markup_escape(a->tie) + "</p>\n";
  out += "<h3>Production command</h3>\n<p>The " + markup_escape(framework_title_of(s))
         + " arguments of the best configuration, with the environment its run needs:</p>\n"
           "<pre class=\"command\">";
  out += markup_escape(production_command_text(*a)) + "</pre>\n";
  const auto table = [&](const char* cls, const auto& list) {
    out += std::string("<table class=\"") + cls + "\">\n<tr><th>key</th><th>value</th></tr>\n";
    for (const auto& [k, v] : list)
      out += "<tr data-key=\"" + markup_escape(k) + "\"><td>" + markup_escape(k) + "</td><td>"
             + markup_escape(v) + "</td></tr>\n";
    out += "</table>\n";
  };
  out += "<h3>Best configuration</h3>\n<p>" + markup_escape(searched_keys_caption(s)) + "</p>\n";
  auto shown = a->parallel;
  shown.insert(shown.end(), a->searched.begin(), a->searched.end());
  table("best-config", shown);
  if (!a->other.empty()) {
    out += "<details class=\"other-keys\"><summary>Other keys (" + std::to_string(a->other.size())
           + "): the job's or their defaults, not searched</summary>\n";
    table("best-config other", a->other);
    out += "</details>\n";
  }
  out += "<h3>Full run</h3>\n<ul class=\"full-run\">\n";
  for (const auto& sentence : full_run_sentences(s))
    out += "<li>" + markup_escape(sentence) + "</li>\n";
  out += "</ul>\n</section>\n";
  return out;
}

const char* answer_style() {
  return R"css(
#answer dl.answer-figures { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
#answer dl.answer-figures dt { font-weight: bold; } #answer dl.answer-figures dd { margin: 0; }
#answer table.best-config td, #answer table.best-config th { padding: 2px 10px; }
/* About twenty keys: four columns of rows keep the command and the charts in view. */
#answer table.best-config, #answer table.best-config tbody { display: block; }
#answer table.best-config { column-count: 3; column-gap: 24px; max-width: 900px; }
#answer table.best-config tr { display: flex; break-inside: avoid; }
#answer table.best-config td, #answer table.best-config th { flex: 0 0 35%; overflow-wrap: anywhere; }
#answer table.best-config td:first-child, #answer table.best-config th:first-child { flex: 0 0 65%; box-sizing: border-box; }
#answer pre.command { white-space: pre-wrap; word-break: break-all; background: #f4f4f4; padding: 8px 10px; font-size: 12px; }
)css";
}

} // namespace paratune
