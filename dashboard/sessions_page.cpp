#include "dashboard/sessions_page.hpp"

#include "dashboard/dashboard_json.hpp"
#include "dashboard/page_frame.hpp"
#include "dashboard/table_cell.hpp"
#include "dashboard/tpu_session_page.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

namespace {

std::string row(const session_view& v) {
  const auto& s = v.summary;
  const auto id = markup_escape(s.session);
  const auto opened = utc_json(v.opened_at_ms);
  std::string r = "<tr class=\"session\" data-session=\"" + id + "\">";
  r += "<td><a href=\"/session/" + id + "\">" + id + "</a></td>";
  r += table_cell(s.job.job_name) + table_cell(s.job.model.name) + table_cell(s.job.cluster.name);
  r += table_cell(to_string(s.state), "state");
  r += table_cell(std::to_string(trials_run(s)) + "/" + std::to_string(s.job.trials), "number");
  r += table_cell(s.best ? fixed(s.best->tflops_per_gpu, 1) : "", "number");
  r += table_cell(s.best ? fixed(100 * s.best->mfu, 1) : "", "number");
  r += table_cell(opened.is_null() ? "" : opened.get<std::string>());
  return r + "</tr>\n";
}

} // namespace

std::string sessions_page(const std::vector<session_view>& views,
                          const std::vector<tpu_session_view>& tpu_views,
                          const std::string& nonce) {
  std::string body = "<h1>paratune tuning sessions</h1>\n";
  if (views.empty() && tpu_views.empty()) {
    body += "<p id=\"empty\">The pool holds no tuning session yet.</p>\n";
    return page_frame("paratune sessions", body, nonce);
  }
  if (views.empty())
    return page_frame("paratune sessions", body + tpu_sessions_table(tpu_views), nonce);
  body += "<table id=\"sessions\">\n<thead><tr><th>Session</th><th>Job</th><th>Model</th>"
          "<th>Cluster</th><th>State</th><th class=\"number\">Trials</th>"
          "<th class=\"number\">Best TFLOP/s/GPU</th><th class=\"number\">Best MFU (%)</th>"
          "<th>Opened (UTC)</th></tr></thead>\n<tbody>\n";
  for (const auto& v : views)
    body += row(v);
  body += "</tbody>\n</table>\n" + tpu_sessions_table(tpu_views);
  return page_frame("paratune sessions", body, nonce);
}

} // namespace paratune
