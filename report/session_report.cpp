#include "report/session_report.hpp"

#include <fmt/format.h>

#include "core/human_units.hpp"
#include "report/baseline_value.hpp"
#include "report/chart_points.hpp"

namespace paratune {

session_report report_of(const std::string& session, const std::vector<wire::envelope>& history) {
  return {summarize(session, history), decision_chain(history)};
}

std::vector<std::pair<std::string, std::string>> header_fields(const session_summary& s) {
  const auto& j = s.job;
  double tuning_gpu_hours = 0; // what the trials cost, with or without tokens:
  for (const auto& r : s.trials)
    tuning_gpu_hours += r.gpu_hours;
  std::vector<std::pair<std::string, std::string>> fields{{"Session", s.session},
          {"Job", j.job_name},
          {"Model", j.model.name},
          {"Cluster", j.cluster.name + " (" + j.cluster.device_name + ")"},
          {"World size", count_of(j.world_size, "device") + " on " + count_of(j.nodes, "node")},
          {"State", to_string(s.state)},
          {"Trial budget", std::to_string(j.trials)},
          {"Trials run", std::to_string(trials_run(s))},
          {"Tuning GPU-hours", fmt::format("{:.2f}", tuning_gpu_hours)}};
  if (const int skipped = trials_skipped(s); skipped > 0) // numbered, not run, no budget spent
    fields.insert(fields.begin() + 8, {"Trials skipped", std::to_string(skipped)});
  if (!s.end_text.empty())
    fields.insert(fields.begin() + 6, {"Why it ended", s.end_text});
  return fields;
}

namespace {

std::string measured_or_dash(bool measured, double value, int decimals) {
  return measured ? fmt::format("{:.{}f}", value, decimals) : "-";
}

std::string stop_or_failure(trial_status status, stop_reason stop, failure_kind failure) {
  if (status == trial_status::failed && failure != failure_kind::none)
    return to_string(failure);
  if (stop != stop_reason::none)
    return to_string(stop);
  return "";
}

} // namespace

std::string exploration_note(const trial_row& r) {
  if (!r.exploration)
    return "";
  return fmt::format("exploration: predicted {:.1f} TFLOP/s/GPU, {:.1f}% below the best measured "
                     "before it ({:.1f}, trial {})",
                     r.predicted_tflops, 100 * (1 - r.predicted_tflops / r.incumbent_tflops),
                     r.incumbent_tflops, r.incumbent);
}

trial_table trial_table_of(const session_summary& s) {
  trial_table t;
  const auto keys = varying_keys(s);
  t.columns.push_back("trial");
  t.numeric.push_back(true);
  for (const auto& k : keys) {
    t.columns.push_back(k);
    t.numeric.push_back(false);
  }
  for (const char* c : {"status", "TFLOP/s/GPU", "MFU (%)", "peak (MiB)", "stop / failure"}) {
    t.columns.push_back(c);
    t.numeric.push_back(std::string_view(c) != "status" && std::string_view(c) != "stop / failure");
  }
  for (const auto& r : s.trials) {
    const bool ran = r.measured();
    trial_table::row row{r.index, {std::to_string(r.index)}, r.change, r.exploration,
                         exploration_note(r)};
    for (const auto& k : keys)
      row.cells.push_back(value_of(r.config, k));
    row.cells.push_back(to_string(r.status));
    row.cells.push_back(measured_or_dash(ran, r.tflops_per_gpu, 1));
    row.cells.push_back(measured_or_dash(ran, 100 * r.mfu, 1));
    row.cells.push_back(measured_or_dash(ran && r.peak_memory_mib > 0, r.peak_memory_mib, 0));
    row.cells.push_back(stop_or_failure(r.status, r.stop, r.failure));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string outcome_sentence(const decision& d) {
  if (!d.finished)
    return "no result: the session ended while it ran";
  std::string what = to_string(d.status);
  if (d.status == trial_status::stopped && d.stop == stop_reason::cancelled)
    what = "cancelled";  // the user's doing, not the early stopper's
  else if (d.status == trial_status::stopped)
    what = fmt::format("stopped early ({})", to_string(d.stop));
  else if (d.status == trial_status::failed && d.stop != stop_reason::none)
    what = fmt::format("failed, ended by the early stopper ({})", to_string(d.stop));
  const bool measured = d.tflops_per_gpu > 0
                        && (d.status == trial_status::succeeded || d.status == trial_status::stopped);
  if (measured) {
    what += fmt::format(": {:.1f} TFLOP/s/GPU, MFU {:.1f}%", d.tflops_per_gpu, 100 * d.mfu);
    if (d.peak_memory_mib > 0)
      what += fmt::format(", peak {:.0f} MiB", d.peak_memory_mib);
  }
  if (!d.outcome.empty() && d.status != trial_status::succeeded)
    what += (measured ? "; " : ": ") + d.outcome;
  return what;
}

std::vector<std::string> full_run_sentences(const session_summary& s) {
  if (s.job.tokens <= 0)
    return {"The job gives no token budget (tokens:), so the full run is not priced."};
  const auto v = full_run_of(s);
  if (!v)
    return {"No trial was measured, so the full run is not priced."};
  std::vector<std::string> out = {
    fmt::format("Full run of {:.3g} tokens with the best configuration (trial {}): {:.1f} days, "
                "{:.0f} GPU-hours.",
                s.job.tokens, s.best->index, v->best.days, v->best.gpu_hours),
    fmt::format("With the first measured configuration (trial {}): {:.1f} days, {:.0f} "
                "GPU-hours; {:.0f} GPU-hours saved.",
                s.first_success->index, v->first.days, v->first.gpu_hours,
                v->first.gpu_hours - v->best.gpu_hours),
    fmt::format("Tuning spent {:.2f} GPU-hours.", v->tuning_gpu_hours)};
  if (const auto b = baseline_sentence(s); !b.empty())
    out.push_back("B" + b.substr(1) + ".");
  else
    out.push_back("The job names no baseline configuration (baseline:).");
  return out;
}

} // namespace paratune
