#pragma once

// The bottleneck analyst's work queue: analysis requests of many sessions,
// served by a bounded set of workers. Pure bookkeeping, no threads and no
// I/O; the analyst actor (actors/bottleneck_analyst.cpp) only feeds it and
// hands what it gives to its workers.
//
// Two rules, each a reason the analyst's queue drained too slowly under many
// sessions (issue 24: one analyst for 200 sessions, 27 trials a minute):
//  - one analysis per session at a time, sessions in the order they asked,
//    so that workers run different sessions in parallel and a session's
//    reports keep the order of its requests;
//  - a request waiting behind a newer one of the same session is never
//    analysed: the newer one reads the same history and more, and the
//    generator answers only a session's latest request anyway. A session
//    that re-asks while its analysis waits (its 8 s quiet limit) so adds no
//    work.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace paratune {

/// What push() did with a request.
enum class analysis_admission {
  queued,   ///< waits for a worker
  replaced, ///< took the place of an older request of its session, which is dropped
  stale,    ///< older than the request of its session already waiting: dropped itself
};

/// Whether a request numbered `newer` makes one numbered `older` of the same
/// session stale. A re-ask keeps its number: the later copy supersedes.
constexpr bool supersedes(int newer, int older) { return newer >= older; }

/// What an analyst does with a request once its session's history is read.
enum class analysis_verdict {
  analyse,    ///< the session's latest request, not yet answered: analyse it
  superseded, ///< the session has asked again since (a higher number): skip it
  answered,   ///< its report is stored already (a re-ask): send that report again
};

/// `request`: the number of the request at hand; `latest_requested`: the
/// highest request number the session's history holds; `reported`: whether
/// the history holds a report for `request`.
constexpr analysis_verdict analysis_verdict_of(int request, int latest_requested, bool reported) {
  if (latest_requested > request)
    return analysis_verdict::superseded;
  return reported ? analysis_verdict::answered : analysis_verdict::analyse;
}

/// Waiting work per key (a session), at most one item per key waiting and
/// one running. `Item` carries the request; `number` orders a key's items.
template <class Item>
class analysis_queue {
public:
  /// Adds a request of `key`. A waiting request of the same key is replaced
  /// when this one supersedes it (it keeps its place in line); otherwise this
  /// one is stale and dropped.
  analysis_admission push(const std::string& key, int number, Item item) {
    auto it = waiting_.find(key);
    if (it == waiting_.end()) {
      waiting_.emplace(key, entry{number, std::move(item)});
      if (!running_.count(key))
        line_.push_back(key);
      return analysis_admission::queued;
    }
    ++dropped_;
    if (!supersedes(number, it->second.number))
      return analysis_admission::stale;
    it->second = entry{number, std::move(item)};
    return analysis_admission::replaced;
  }

  /// The request of the key that has waited longest and has none running,
  /// now running; nothing when every waiting key has one running.
  std::optional<std::pair<std::string, Item>> take() {
    if (line_.empty())
      return std::nullopt;
    auto key = std::move(line_.front());
    line_.pop_front();
    auto it = waiting_.find(key);
    std::pair<std::string, Item> out{key, std::move(it->second.item)};
    waiting_.erase(it);
    running_.insert(std::move(key));
    return out;
  }

  /// `key`'s running request ended: a request of it that came meanwhile
  /// joins the line (at its end: the others have waited longer).
  void done(const std::string& key) {
    if (!running_.erase(key))
      return;
    if (waiting_.count(key))
      line_.push_back(key);
  }

  /// Requests waiting (at most one per key).
  size_t waiting() const { return waiting_.size(); }
  /// Keys with a request running.
  size_t running() const { return running_.size(); }
  /// Requests dropped unanalysed, replaced or stale, since the start.
  uint64_t dropped() const { return dropped_; }

private:
  struct entry {
    int number = 0;
    Item item;
  };
  std::map<std::string, entry> waiting_;
  std::set<std::string> running_;
  std::deque<std::string> line_; ///< waiting keys with nothing running, oldest first
  uint64_t dropped_ = 0;
};

} // namespace paratune
