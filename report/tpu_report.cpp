#include "report/tpu_report.hpp"

#include <fmt/format.h>

#include "core/human_units.hpp"
#include "core/model_flops_utilization.hpp"
#include "ledger/tpu_runs.hpp"
#include "messages/codec.hpp"
#include "report/markdown_report.hpp"
#include "report/readable_ledger.hpp"
#include "report/svg_canvas.hpp"

namespace paratune {

const wire::tpu_trial_row* tpu_row_of(const wire::tpu_session_end& end, int trial) {
  for (const auto& t : end.trials)
    if (t.trial == trial)
      return &t;
  return nullptr;
}

bool tpu_run_in_progress(const wire::tpu_trial_row& t) {
  return t.started_ms > 0 && t.ended_ms == 0 && t.error.empty();
}

namespace {

std::string tpu_step_text(const wire::tpu_trial_row& t) {
  if (tpu_run_in_progress(t))
    return "running";
  if (!t.error.empty())
    return "failed: " + t.error;
  if (!t.stopped.empty())
    return (t.step_time_ms > 0 ? fmt::format("{:.1f} ms, ", t.step_time_ms) : std::string())
           + "stopped: " + t.stopped;
  return fmt::format("{:.1f} ms", t.step_time_ms);
}

// Where the run went: its pool, and the run it repeats.
std::string tpu_run_text(const wire::tpu_trial_row& t) {
  std::string out = t.pool;
  if (t.retry_of > 0)
    out += (out.empty() ? "" : ", ") + fmt::format("retry of trial {}", t.retry_of);
  return out;
}

} // namespace

std::optional<wire::tpu_session_end> tpu_progress_of(const std::vector<wire::envelope>& history) {
  return readable_ledger_of({}, history).tpu_progress();
}

std::optional<wire::tpu_session_end> tpu_end_of(const std::vector<wire::envelope>& history) {
  auto progress = tpu_progress_of(history);
  return progress && is_final(progress->state) ? progress : std::nullopt;
}

const wire::tpu_trial_row* tpu_baseline_of(const wire::tpu_session_end& end) {
  const bool old_records = end.job_mesh.empty();
  for (const auto& t : end.trials) // in trial order
    if (tpu_run_measured(t) && (old_records || t.job_mesh))
      return &t;
  return nullptr;
}

double tpu_speedup(const wire::tpu_session_end& end) {
  const auto* best = tpu_row_of(end, end.best_trial);
  const auto* base = tpu_baseline_of(end);
  if (!best || !base || !tpu_run_measured(*best))
    return 0;
  return base->step_time_ms / best->step_time_ms;
}

std::string tpu_baseline_name(const wire::tpu_session_end& end) {
  return end.job_mesh.empty() ? "the first measured run" : "the job's own mesh";
}

std::string tpu_gain_text(const wire::tpu_session_end& end) {
  const auto* best = tpu_row_of(end, end.best_trial);
  if (!best)
    return "";
  const auto name = tpu_baseline_name(end);
  if (const auto* base = tpu_baseline_of(end)) {
    if (base->trial == best->trial)
      return name + (end.job_mesh.empty() ? ": no later mesh was faster"
                                          : ": no other mesh was faster");
    return fmt::format("x{:.2f} over {}, trial {}", tpu_speedup(end), name, base->trial);
  }
  // Only a job's mesh can lack a baseline while another run was measured.
  for (const auto& t : end.trials)
    if (t.job_mesh)
      return fmt::format("{} {} in trial {}: nothing measured to compare with", name,
                         tpu_run_in_progress(t) ? "is still running" : "failed", t.trial);
  if (!end.job_mesh_verdict.empty())
    return fmt::format("{} ({}) was not run: {}; nothing measured to compare with", name,
                       end.job_mesh, end.job_mesh_verdict);
  return fmt::format("{} ({}) was not run: nothing measured to compare with", name,
                     end.job_mesh);
}

nlohmann::json tpu_report_json(const std::string& session, const wire::tpu_session_end& end) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& t : end.trials)
    rows.push_back({{"trial", t.trial}, {"mesh", t.mesh}, {"step_time_ms", t.step_time_ms},
                    {"error", t.error}, {"bottleneck", t.bottleneck}, {"next", t.next},
                    {"pool", t.pool}, {"stopped", t.stopped}, {"retry_of", t.retry_of},
                    {"started_ms", t.started_ms}, {"ended_ms", t.ended_ms},
                    {"job_mesh", t.job_mesh}, {"mfu", t.mfu}, {"chip_hours", t.chip_hours}});
  nlohmann::json j = {{"session", session},
                      {"state", to_string(end.state)},
                      {"job_mesh", end.job_mesh},
                      {"job_mesh_verdict", end.job_mesh_verdict},
                      {"chip_hours", tpu_chip_hours(end)},
                      {"trials", rows}};
  if (const auto* best = tpu_row_of(end, end.best_trial)) {
    const auto* base = tpu_baseline_of(end);
    j["best"] = {{"trial", best->trial},
                 {"mesh", best->mesh},
                 {"step_time_ms", best->step_time_ms},
                 {"mfu", best->mfu},
                 {"speedup", tpu_speedup(end)},
                 {"baseline_trial", base ? base->trial : 0},
                 {"gain", tpu_gain_text(end)}};
  }
  return j;
}

std::string tpu_best_line(const nlohmann::json& report) {
  if (!report.contains("best") || report["trials"].empty())
    return "";
  const auto& best = report["best"];
  const double mfu = best.value("mfu", 0.0);
  return fmt::format("best: trial {}, mesh {}, {} per step{} ({})", best["trial"].get<int>(),
                     best["mesh"].get<std::string>(),
                     human_duration(best["step_time_ms"].get<double>()),
                     mfu > 0 ? ", MFU " + mfu_text(mfu) : std::string(),
                     best["gain"].get<std::string>());
}

double tpu_chip_hours(const wire::tpu_session_end& end) {
  double total = 0;
  for (const auto& t : end.trials)
    total += t.chip_hours;
  return total;
}

namespace {

// ", MFU 41.3%" for a run that measured one (none in older records).
std::string mfu_words(const wire::tpu_trial_row& t) {
  return t.mfu > 0 ? ", MFU " + mfu_text(t.mfu) : std::string();
}

// " Chip-hours: 0.12." once the runs spent any (none in older records).
std::string chip_hours_words(const wire::tpu_session_end& end) {
  const double hours = tpu_chip_hours(end);
  return hours > 0 ? fmt::format(" Chip-hours: {:.2f}.", hours) : std::string();
}

} // namespace

std::string render_tpu_markdown(const std::string& session, const wire::tpu_session_end& end) {
  std::string out = "# paratune report: TPU session " + markdown_escape(session) + "\n\n";
  if (const auto* best = tpu_row_of(end, end.best_trial))
    out += fmt::format("**Best mesh:** `{}`, {:.1f} ms per step{} (trial {}), {}.\n\n",
                       markdown_escape(best->mesh), best->step_time_ms, mfu_words(*best),
                       best->trial, tpu_gain_text(end));
  else
    out += "**No run was measured.**\n\n";
  out += fmt::format("State: {}. Runs: {}.{}\n\n", to_string(end.state), end.trials.size(),
                     chip_hours_words(end));
  out += "| Trial | Mesh | Step | Bottleneck | Next | Run |\n|---|---|---|---|---|---|\n";
  for (const auto& t : end.trials)
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", t.trial, markdown_escape(t.mesh),
                       markdown_escape(tpu_step_text(t)), markdown_escape(t.bottleneck),
                       markdown_escape(t.next), markdown_escape(tpu_run_text(t)));
  return out;
}

std::string tpu_answer_html(const wire::tpu_session_end& end) {
  if (const auto* best = tpu_row_of(end, end.best_trial))
    return fmt::format("<p class=\"answer\"><b>Best mesh:</b> <code>{}</code>, {:.1f} ms per "
                       "step{} (trial {}), {}.</p>\n",
                       markup_escape(best->mesh), best->step_time_ms, mfu_words(*best),
                       best->trial, markup_escape(tpu_gain_text(end)));
  return "<p class=\"answer\"><b>No run was measured.</b></p>\n";
}

std::string tpu_runs_table_html(const wire::tpu_session_end& end) {
  const auto esc = [](const std::string& s) { return markup_escape(s); };
  std::string out = "<table class=\"trials\">\n<tr><th>Trial</th><th>Mesh</th><th>Step</th>"
                    "<th>Bottleneck</th><th>Next</th><th>Run</th></tr>\n";
  for (const auto& t : end.trials)
    out += fmt::format("<tr data-trial=\"{}\"><td class=\"num\">{}</td><td>{}</td><td "
                       "class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       t.trial, t.trial, esc(t.mesh), esc(tpu_step_text(t)), esc(t.bottleneck),
                       esc(t.next), esc(tpu_run_text(t)));
  return out + "</table>\n";
}

std::string render_tpu_html(const std::string& session, const wire::tpu_session_end& end) {
  const auto esc = [](const std::string& s) { return markup_escape(s); };
  std::string out =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>paratune report: "
    + esc(session)
    + "</title>\n<style>body { font-family: \"DejaVu Sans\", sans-serif; color: #222; "
      "max-width: 960px; margin: 24px auto; padding: 0 16px; } table { border-collapse: "
      "collapse; font-size: 13px; } th, td { border: 1px solid #ccc; padding: 3px 8px; "
      "text-align: left; } td.num { text-align: right; }</style></head><body>\n";
  out += "<h1>paratune report: TPU session " + esc(session) + "</h1>\n";
  out += tpu_answer_html(end);
  out += fmt::format("<p>State: {}. Runs: {}.{}</p>\n", to_string(end.state), end.trials.size(),
                     chip_hours_words(end));
  out += tpu_runs_table_html(end);
  out += "</body></html>\n";
  return out;
}

} // namespace paratune
