#include "dashboard/tpu_session_page.hpp"

#include "dashboard/page_frame.hpp"
#include "dashboard/table_cell.hpp"
#include "report/session_summary.hpp"
#include "report/svg_canvas.hpp"
#include "report/tpu_report.hpp"

namespace paratune {

namespace {

const wire::tpu_trial_row* best_run(const tpu_session_view& v) {
  return tpu_row_of(v.progress, v.progress.best_trial);
}

std::string best_text(const tpu_session_view& v) {
  const auto* best = best_run(v);
  if (!best)
    return "none measured yet";
  return fixed(best->step_time_ms, 1) + " ms per step, mesh " + best->mesh + " (trial "
         + std::to_string(best->trial) + ")";
}

std::string runs_done(const tpu_session_view& v) {
  return std::to_string(v.progress.trials.size()) + "/" + std::to_string(v.job.budget);
}

std::string opened_text(const tpu_session_view& v) {
  const auto opened = utc_json(v.opened_at_ms);
  return opened.is_null() ? "" : opened.get<std::string>();
}

} // namespace

std::string tpu_sessions_table(const std::vector<tpu_session_view>& views) {
  if (views.empty())
    return "";
  std::string out =
    "<h2>TPU sessions</h2>\n<table id=\"tpu-sessions\">\n<thead><tr><th>Session</th>"
    "<th>Experiment</th><th>Model</th><th>Hardware</th><th>State</th>"
    "<th class=\"number\">Runs</th><th class=\"number\">Best step (ms)</th><th>Best mesh</th>"
    "<th>Opened (UTC)</th></tr></thead>\n<tbody>\n";
  for (const auto& v : views) {
    const auto id = markup_escape(v.session);
    const auto* best = best_run(v);
    out += "<tr class=\"session tpu\" data-session=\"" + id + "\">";
    out += "<td><a href=\"/session/" + id + "\">" + id + "</a></td>";
    out += table_cell(v.job.experiment_name) + table_cell(v.job.model) + table_cell(v.job.hardware);
    out += table_cell(to_string(v.progress.state), "state") + table_cell(runs_done(v), "number");
    out += table_cell(best ? fixed(best->step_time_ms, 1) : "", "number");
    out += table_cell(best ? best->mesh : "") + table_cell(opened_text(v)) + "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string tpu_session_page(const tpu_session_view& v, const std::string& nonce) {
  const auto id = markup_escape(v.session);
  const auto item = [](const char* term, const std::string& text, const char* dd_id) {
    return "<dt>" + std::string(term) + "</dt><dd id=\"" + dd_id + "\">" + markup_escape(text)
           + "</dd>\n";
  };
  std::string body = "<main id=\"session\" class=\"tpu\" data-session=\"" + id + "\">\n";
  body += "<p><a href=\"/\">All sessions</a> | <a href=\"/api/sessions/" + id
          + "\">JSON</a></p>\n";
  body += "<h1>TPU session " + id + "</h1>\n<dl class=\"job\">\n";
  body += item("Experiment", v.job.experiment_name, "job") + item("Model", v.job.model, "model")
          + item("Hardware", v.job.hardware, "hardware")
          + item("State", to_string(v.progress.state), "state")
          + item("Why it ended", v.progress.text, "ended-because")
          + item("Runs", runs_done(v), "done") + item("Best", best_text(v), "best") + "</dl>\n";
  body += tpu_answer_html(v.progress);
  body += "<h2>Runs</h2>\n" + tpu_runs_table_html(v.progress) + "</main>\n";
  // No JSON to poll and redraw: the server writes the whole page, so a
  // running session's page is loaded again.
  if (!is_final(v.progress.state))
    body += "<script nonce=\"" + nonce
            + "\">setTimeout(function () { location.reload(); }, 2000);</script>\n";
  return page_frame("paratune TPU session " + id, body, nonce);
}

nlohmann::json tpu_session_json(const tpu_session_view& v) {
  auto j = tpu_report_json(v.session, v.progress);
  j["kind"] = "tpu";
  j["job"] = {{"name", v.job.experiment_name},
              {"model", v.job.model},
              {"hardware", v.job.hardware},
              {"budget", v.job.budget}};
  j["opened_at"] = utc_json(v.opened_at_ms);
  return j;
}

nlohmann::json tpu_session_line_json(const tpu_session_view& v) {
  nlohmann::json best = nullptr;
  if (const auto* b = best_run(v))
    best = {{"trial", b->trial}, {"mesh", b->mesh}, {"step_time_ms", b->step_time_ms}};
  return {{"session", v.session},
          {"job", v.job.experiment_name},
          {"model", v.job.model},
          {"hardware", v.job.hardware},
          {"state", to_string(v.progress.state)},
          {"runs_done", v.progress.trials.size()},
          {"runs_budget", v.job.budget},
          {"best", best},
          {"opened_at", utc_json(v.opened_at_ms)}};
}

} // namespace paratune
