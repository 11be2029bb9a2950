#include "daemon/session_index.hpp"

#include <algorithm>

#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

namespace {

bool measured(const wire::trial_result& r) {
  return r.status == trial_status::succeeded
         || (r.status == trial_status::stopped && r.tflops_per_gpu > 0);
}

} // namespace

void session_index::apply(entry& e, const wire::envelope& record) {
  auto& row = e.row;
  if (record.type == wire::type_name<wire::session_opened>()) {
    const auto s = wire::body_of<wire::session_opened>(record);
    e.opened = true;
    row.job_name = s.job_name;
    row.model = s.model.name;
    row.cluster = s.cluster.name;
    row.trials_budget = s.trials;
    row.opened_ms = record.ts_ms;
  } else if (record.type == wire::type_name<wire::proposal>()) {
    if (record.trial > 0)
      e.proposed.insert(record.trial);
  } else if (record.type == wire::type_name<wire::trial_started>()) {
    e.started.insert(record.trial);
  } else if (record.type == wire::type_name<wire::trial_result>()) {
    const auto r = wire::body_of<wire::trial_result>(record);
    e.results[r.trial] = r.status;
    if (measured(r) && r.tflops_per_gpu > row.best_tflops) {
      row.best_tflops = r.tflops_per_gpu;
      row.best_trial = r.trial;
    }
  } else if (record.type == wire::type_name<wire::session_status>()) {
    const auto s = wire::body_of<wire::session_status>(record);
    row.state = to_string(s.state);
    row.text = s.text;
    e.ended = is_final(s.state);
  }
}

void session_index::settle(entry& e) {
  int done = 0, running = 0;
  for (const auto& [trial, status] : e.results)
    done += status != trial_status::skipped;
  for (int t : e.proposed)
    running += !e.results.count(t);
  e.row.trials_done = done;
  e.row.running = running;
  if (!e.ended)
    e.row.state = to_string(session_state::running);
}

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
    auto& e = entries_[id];
    auto fresh = pool.session_history(id, e.read_to);
    if (!fresh) {
      // Damage in its records fails this session alone: the others list.
      e.row.id = id;
      e.opened = true;
      e.unreadable = describe(fresh.error());
      continue;
    }
    e.unreadable.clear();
    if (fresh->empty())
      continue;
    e.row.id = id;
    for (const auto& record : *fresh) {
      e.read_to = std::max(e.read_to, record.seq);
      try {
        apply(e, record);
      } catch (const std::exception&) {
        // A record that does not decode changes nothing here; the session's
        // own reader reports it.
      }
    }
    settle(e);
  }
  return {};
}

control::session_row session_index::shown(const std::string& id, const entry& e) const {
  auto row = e.row;
  if (!e.unreadable.empty()) {
    row.state = to_string(session_state::failed);
    row.text = "its records in the pool do not read: " + e.unreadable
               + " (paratune pool check tells what is damaged)";
  } else if (const auto it = stalls_.find(id); it != stalls_.end() && !e.ended) {
    row.state = to_string(session_state::paused);
    row.text = "waiting for the pool to store its next record: " + it->second;
  }
  return row;
}

std::vector<control::session_row> session_index::rows() const {
  std::lock_guard<std::mutex> guard{mutex_};
  std::vector<control::session_row> out;
  for (const auto& [id, e] : entries_)
    if (e.opened)
      out.push_back(shown(id, e));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.opened_ms != b.opened_ms ? a.opened_ms > b.opened_ms : a.id > b.id;
  });
  return out;
}

std::optional<control::session_row> session_index::row(const std::string& id) const {
  std::lock_guard<std::mutex> guard{mutex_};
  const auto it = entries_.find(id);
  if (it == entries_.end() || !it->second.opened)
    return std::nullopt;
  return shown(id, it->second);
}

std::vector<std::string> session_index::unfinished() const {
  std::lock_guard<std::mutex> guard{mutex_};
  std::vector<std::string> out;
  for (const auto& [id, e] : entries_)
    if (e.opened && !e.ended && e.unreadable.empty())
      out.push_back(id);
  return out;
}

trial_counts session_index::trials() const {
  std::lock_guard<std::mutex> guard{mutex_};
  trial_counts c;
  for (const auto& [_, e] : entries_) {
    for (int t : e.proposed)
      if (!e.results.count(t))
        ++(e.started.count(t) ? c.running : c.queued);
    for (const auto& [t, status] : e.results)
      ++c.ended[status];
  }
  return c;
}

} // namespace paratune
