#include "dashboard/session_view.hpp"

#include "messages/codec.hpp"
#include "report/readable_ledger.hpp"

namespace paratune {

namespace {

// Trials whose current run started and has no result yet, with the change
// their proposal made.
std::vector<trial_in_flight> in_flight(const session_ledger& ledger) {
  std::vector<trial_in_flight> out;
  for (const auto& [number, t] : ledger.trials()) {
    if (!t.started || t.result)
      continue;
    const auto started = wire::body_of<wire::trial_started>(*t.started);
    out.push_back({number, t.proposal ? t.proposal->change : std::string(), started.pool});
  }
  return out;
}

// The log's TFLOP/s series of the trials still running, in record order:
// telemetry, which the ledger does not keep.
live_series live_of(const std::vector<wire::envelope>& history,
                    const std::vector<trial_in_flight>& running) {
  live_series out;
  for (const auto& r : running)
    out[r.index];
  for (const auto& e : history) {
    if (e.type != wire::type_name<wire::metric_series>() || !out.count(e.trial))
      continue;
    const auto m = wire::body_of<wire::metric_series>(e);
    if (m.metric != trial_metric::tflops_per_gpu || m.gpu >= 0)
      continue;
    auto& values = out[m.trial];
    for (const auto& p : m.points)
      values.push_back(p.value);
  }
  return out;
}

session_view gpu_view_of(const session_ledger& ledger,
                         const std::vector<wire::envelope>& history) {
  session_view v;
  v.opened_at_ms = ledger.opened_ms();
  for (const auto& [number, t] : ledger.trials()) {
    if (t.proposal && !t.proposal->reasoning.empty())
      v.notes[number].reasoning = t.proposal->reasoning;
    if (t.result)
      v.notes[number].error = t.result->error_message;
    if (t.diagnosis)
      v.notes[number].diagnosis = t.diagnosis;
  }
  v.summary = summarize(ledger);
  v.running = in_flight(ledger);
  v.live = live_of(history, v.running);
  return v;
}

} // namespace

std::optional<any_session_view> view_of(const std::string& session,
                                        const std::vector<wire::envelope>& history) {
  const auto ledger = readable_ledger_of(session, history);
  if (ledger.job())
    return gpu_view_of(ledger, history);
  if (auto progress = ledger.tpu_progress()) {
    tpu_session_view v;
    v.session = session;
    v.opened_at_ms = ledger.tpu_job() ? ledger.opened_ms() : 0;
    if (const auto* job = ledger.tpu_job())
      v.job = *job;
    v.progress = std::move(*progress);
    return v;
  }
  return std::nullopt;
}

} // namespace paratune
