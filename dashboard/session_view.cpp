#include "dashboard/session_view.hpp"

#include <set>

#include "messages/codec.hpp"

namespace paratune {

namespace {

template <class T>
bool holds(const wire::envelope& e) {
  return e.type == wire::type_name<T>();
}

// Trials started and not finished, with the change their proposal made.
std::vector<trial_in_flight> in_flight(const std::vector<wire::envelope>& history) {
  std::map<int, trial_in_flight> started;
  std::map<int, std::string> changes;
  std::set<int> finished;
  for (const auto& e : history) {
    if (holds<wire::proposal>(e)) {
      const auto p = wire::body_of<wire::proposal>(e);
      changes[p.trial] = p.change;
    } else if (holds<wire::trial_started>(e)) {
      const auto t = wire::body_of<wire::trial_started>(e);
      started[t.trial] = {t.trial, "", t.pool};
    } else if (holds<wire::trial_result>(e)) {
      finished.insert(e.trial);
    }
  }
  std::vector<trial_in_flight> out;
  for (auto& [trial, t] : started) {
    if (finished.count(trial))
      continue;
    t.change = changes[trial];
    out.push_back(std::move(t));
  }
  return out;
}

// The log's TFLOP/s series of the trials still running, in record order.
live_series live_of(const std::vector<wire::envelope>& history,
                    const std::vector<trial_in_flight>& running) {
  live_series out;
  for (const auto& r : running)
    out[r.index];
  for (const auto& e : history) {
    if (!holds<wire::metric_series>(e) || !out.count(e.trial))
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

} // namespace

std::optional<session_view> view_of(const std::string& session,
                                    const std::vector<wire::envelope>& history) {
  session_view v;
  bool opened = false;
  for (const auto& e : history) {
    if (holds<wire::session_opened>(e)) {
      opened = true;
      v.opened_at_ms = e.ts_ms;
    } else if (holds<wire::proposal>(e)) {
      const auto p = wire::body_of<wire::proposal>(e);
      if (p.trial > 0) // trial 0: an answer that launched nothing
        v.notes[p.trial].reasoning = p.reasoning;
    } else if (holds<wire::trial_result>(e)) {
      const auto r = wire::body_of<wire::trial_result>(e);
      v.notes[r.trial].error = r.error_message;
    } else if (holds<wire::failure_diagnosis>(e)) {
      auto d = wire::body_of<wire::failure_diagnosis>(e);
      const int trial = d.trial;
      v.notes[trial].diagnosis = std::move(d);
    }
  }
  if (!opened)
    return std::nullopt;
  v.summary = summarize(session, history);
  v.running = in_flight(history);
  v.live = live_of(history, v.running);
  return v;
}

} // namespace paratune
