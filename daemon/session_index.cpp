#include "daemon/session_index.hpp"

#include <algorithm>

#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "report/session_summary.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

caf::expected<void> session_index::refresh(const message_pool& pool) {
  auto ids = pool.sessions();
  if (!ids)
    return ids.error();
  const auto stalls = pool.write_stalls();
  std::lock_guard<std::mutex> guard{mutex_};
  stalls_.clear();
  for (const auto& [id, stall] : stalls)
    stalls_[id] = stall.error;
  for (const auto& id : *ids) {
    auto& e = entries_.try_emplace(id, entry{session_ledger(id), {}}).first->second;
    // A record that does not decode changes nothing here (the ledger skips
    // it); the session's own reader reports it.
    auto fresh = pool.session_history(id, e.ledger.last_seq());
    if (!fresh) {
      // Damage in its records fails this session alone: the others list.
      e.unreadable = describe(fresh.error());
      continue;
    }
    e.unreadable.clear();
    e.ledger.apply(*fresh);
  }
  return {};
}

control::session_row session_index::shown(const std::string& id, const entry& e) const {
  const auto& l = e.ledger;
  control::session_row row;
  row.id = id;
  if (const auto* job = l.job()) {
    row.job_name = job->job_name;
    row.model = job->model.name;
    row.cluster = job->cluster.name;
    row.trials_budget = job->trials;
    row.opened_ms = l.opened_ms();
  }
  // An ended session runs nothing. A trial it started that has no result
  // yet is being stopped: a cancel stores the session's end first, and the
  // validator, told by it, stores the stopped trial's result after. Such a
  // trial counts as done (as it will once its result is in), never as running.
  for (const auto& [_, t] : l.trials()) {
    const bool stopping = l.ended() && !t.result && t.started;
    row.trials_done += (t.result && spends_budget(t.result->status)) || stopping;
  }
  row.running = l.ended() ? 0 : int(l.in_flight().size());
  // The answer's trial, by the rule the report, export and ask use
  // (core/best_choice): among trials within noise of the highest, the most
  // memory headroom, then the simpler configuration.
  if (const auto s = summarize(l); s.best) {
    row.best_trial = s.best->index;
    row.best_tflops = s.best->tflops_per_gpu;
  }
  if (const auto* tpu = l.tpu_job()) {
    // A TPU session: its runs, the fastest; no TFLOP/s per GPU.
    row.job_name = tpu->experiment_name;
    row.model = tpu->model;
    row.cluster = tpu->hardware;
    row.trials_budget = tpu->budget;
    row.opened_ms = l.opened_ms();
    // Its rows count its runs: a run ends when its diagnosis is in, and a
    // mesh MaxText refuses is a run that never launched.
    row.trials_done = row.running = 0;
    row.best_tflops = 0;
    for (const auto& [_, r] : l.tpu_runs()) {
      row.trials_done += r.ended_ms > 0;
      row.running += !l.ended() && r.ended_ms == 0;
    }
    row.best_trial = l.tpu_best_run();
  }
  row.state = to_string(l.ended() ? l.end()->state : session_state::running);
  if (l.ended())
    row.text = l.end()->text;
  if (!e.unreadable.empty()) {
    row.state = to_string(session_state::failed);
    row.text = "its records in the pool do not read: " + e.unreadable
               + " (paratune pool check tells what is damaged)";
  } else if (const auto it = stalls_.find(id); it != stalls_.end() && !l.ended()) {
    row.state = to_string(session_state::paused);
    row.text = "waiting for the pool to store its next record: " + it->second;
  }
  return row;
}

std::vector<control::session_row> session_index::rows() const {
  std::lock_guard<std::mutex> guard{mutex_};
  std::vector<control::session_row> out;
  for (const auto& [id, e] : entries_)
    if (e.listed())
      out.push_back(shown(id, e));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.opened_ms != b.opened_ms ? a.opened_ms > b.opened_ms : a.id > b.id;
  });
  return out;
}

std::optional<control::session_row> session_index::row(const std::string& id) const {
  std::lock_guard<std::mutex> guard{mutex_};
  const auto it = entries_.find(id);
  if (it == entries_.end() || !it->second.listed())
    return std::nullopt;
  return shown(id, it->second);
}

std::vector<std::string> session_index::unfinished() const {
  std::lock_guard<std::mutex> guard{mutex_};
  std::vector<std::string> out;
  for (const auto& [id, e] : entries_)
    if ((e.ledger.job() || e.ledger.tpu_job()) && !e.ledger.ended() && e.unreadable.empty())
      out.push_back(id);
  return out;
}

trial_counts session_index::trials() const {
  std::lock_guard<std::mutex> guard{mutex_};
  trial_counts c;
  for (const auto& [_, e] : entries_)
    for (const auto& [number, t] : e.ledger.trials()) {
      if (t.result)
        ++c.ended[t.result->status];
      else if (t.proposal)
        ++(t.started ? c.running : c.queued);
    }
  return c;
}

} // namespace paratune
