#include "dashboard/session_page.hpp"

#include "dashboard/page_frame.hpp"
#include "dashboard/session_script.hpp"
#include "report/answer_html.hpp"
#include "report/charts.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

namespace {

std::string job_list(const session_view& v) {
  const auto& s = v.summary;
  const auto item = [](const char* term, const std::string& html, const char* id = nullptr) {
    const std::string open = id ? "<dd id=\"" + std::string(id) + "\">" : "<dd>";
    return "<dt>" + std::string(term) + "</dt>" + open + html + "</dd>\n";
  };
  const auto best = s.best ? fixed(s.best->tflops_per_gpu, 1) + " TFLOP/s/GPU, MFU "
                               + fixed(100 * s.best->mfu, 1) + "% (trial "
                               + std::to_string(s.best->index) + ")"
                           : "none measured yet";
  return "<dl class=\"job\">\n" + item("Job", markup_escape(s.job.job_name), "job")
         + item("Model", markup_escape(s.job.model.name))
         + item("Cluster", markup_escape(s.job.cluster.name) + ", "
                             + std::to_string(s.job.world_size) + " GPUs")
         + item("State", markup_escape(to_string(s.state)), "state")
         + item("Why it ended", markup_escape(s.end_text), "ended-because")
         + item("Trials", std::to_string(trials_run(s)) + "/" + std::to_string(s.job.trials),
                "done")
         + item("Best", best, "best") + "</dl>\n";
}

// The table's head and rows come from the script (the keys that varied
// are columns); until its first answer, one row says it is loading, and
// the rows replace it.
constexpr const char* trial_table_html =
  "<table id=\"trials\">\n<thead></thead>\n<tbody><tr class=\"loading\"><td>Loading the "
  "trials...</td></tr></tbody>\n</table>\n"
  "<noscript><p>The trial table needs JavaScript; the same data is at the session's "
  "JSON.</p></noscript>\n";

} // namespace

std::string session_panels(const session_view& v) {
  std::string out = answer_html(v.summary) + "<h2>Charts</h2>\n<div class=\"charts\">\n";
  if (!v.running.empty())
    out += inline_svg(live_chart_svg(v.live));
  for (const auto& c : report_charts(v.summary))
    out += inline_svg(c.svg);
  return out + "</div>\n";
}

std::string session_page(const session_view& v, const std::string& panels_html,
                         const std::string& nonce) {
  const auto id = markup_escape(v.summary.session);
  std::string body = "<main id=\"session\" data-session=\"" + id + "\">\n";
  body += "<p><a href=\"/\">All sessions</a> | <a href=\"/api/sessions/" + id
          + "\">JSON</a></p>\n";
  body += "<h1>Session " + id + "</h1>\n" + job_list(v);
  body += "<p id=\"status\"></p>\n";
  body += "<div id=\"panels\">" + panels_html + "</div>\n";
  body += "<h2>Trials</h2>\n" + std::string(trial_table_html);
  body += "<h2>Diagnoses, failures and reasoning</h2>\n<div id=\"notes\"></div>\n";
  body += "</main>\n<script nonce=\"" + nonce + "\">" + session_script() + "</script>\n";
  return page_frame("paratune session " + id, body, nonce);
}

} // namespace paratune
