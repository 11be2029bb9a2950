#include "dashboard/session_page.hpp"

#include "dashboard/page_frame.hpp"
#include "dashboard/session_script.hpp"
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
                               + fixed(s.best->mfu, 3) + " (trial "
                               + std::to_string(s.best->index) + ")"
                           : "none measured yet";
  return "<dl class=\"job\">\n" + item("Job", markup_escape(s.job.job_name), "job")
         + item("Model", markup_escape(s.job.model.name))
         + item("Cluster", markup_escape(s.job.cluster.name) + ", "
                             + std::to_string(s.job.world_size) + " GPUs")
         + item("State", markup_escape(to_string(s.state)), "state")
         + item("Why it ended", markup_escape(s.end_text), "ended-because")
         + item("Trials", std::to_string(s.trials.size()) + "/" + std::to_string(s.job.trials),
                "done")
         + item("Best", best, "best") + "</dl>\n";
}

constexpr const char* trial_table =
  "<table id=\"trials\">\n<thead><tr><th class=\"number\">Trial</th><th>Change</th>"
  "<th>Pool</th><th>Status</th><th class=\"number\">TFLOP/s/GPU</th>"
  "<th class=\"number\">MFU</th><th class=\"number\">Peak memory (MiB)</th>"
  "<th>Stop reason</th></tr></thead>\n<tbody></tbody>\n</table>\n"
  "<noscript><p>The trial table needs JavaScript; the same data is at the session's "
  "JSON.</p></noscript>\n";

} // namespace

std::string session_page(const session_view& v, const std::string& chart_svg,
                         const std::string& nonce) {
  const auto id = markup_escape(v.summary.session);
  std::string body = "<main id=\"session\" data-session=\"" + id + "\">\n";
  body += "<p><a href=\"/\">All sessions</a> | <a href=\"/api/sessions/" + id
          + "\">JSON</a></p>\n";
  body += "<h1>Session " + id + "</h1>\n" + job_list(v);
  body += "<p id=\"status\">Loading the trials...</p>\n";
  body += "<h2>Trials</h2>\n" + std::string(trial_table);
  body += "<h2>MFU per trial</h2>\n<div id=\"chart\">" + chart_svg + "</div>\n";
  body += "<h2>Diagnoses, failures and reasoning</h2>\n<div id=\"notes\"></div>\n";
  body += "</main>\n<script nonce=\"" + nonce + "\">" + session_script() + "</script>\n";
  return page_frame("paratune session " + id, body, nonce);
}

} // namespace paratune
