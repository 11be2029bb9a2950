#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

namespace paratune {

/// Per-session state that a reader keeps between messages (a session's
/// ledger, its runnable space), shared between threads. One session's
/// value is used by one thread at a time: its users are one actor, or
/// workers that a queue hands one session at a time. Holds the `capacity`
/// sessions used last; a session dropped and asked for again starts over.
template <class T>
class session_cache {
public:
  explicit session_cache(size_t capacity) : capacity_(capacity) {}

  /// `session`'s value, made the first time (from the session's id when T
  /// takes one).
  std::shared_ptr<T> of(const std::string& session) {
    std::lock_guard<std::mutex> guard{mutex_};
    auto& entry = values_[session];
    entry.first = ++clock_;
    if (!entry.second) {
      if constexpr (std::is_constructible_v<T, std::string>)
        entry.second = std::make_shared<T>(session);
      else
        entry.second = std::make_shared<T>();
    }
    auto out = entry.second;
    if (values_.size() > capacity_)
      drop_least_recent();
    return out;
  }

  /// `session`'s value, or null when none is kept (never made, or dropped).
  std::shared_ptr<T> find(const std::string& session) const {
    std::lock_guard<std::mutex> guard{mutex_};
    auto it = values_.find(session);
    return it == values_.end() ? nullptr : it->second.second;
  }

  /// Drops `session`'s value (its session has ended).
  void forget(const std::string& session) {
    std::lock_guard<std::mutex> guard{mutex_};
    values_.erase(session);
  }

  size_t size() const {
    std::lock_guard<std::mutex> guard{mutex_};
    return values_.size();
  }

private:
  void drop_least_recent() {
    auto oldest = values_.begin();
    for (auto it = values_.begin(); it != values_.end(); ++it)
      if (it->second.first < oldest->second.first)
        oldest = it;
    values_.erase(oldest);
  }

  mutable std::mutex mutex_;
  size_t capacity_;
  uint64_t clock_ = 0;
  std::map<std::string, std::pair<uint64_t, std::shared_ptr<T>>> values_;
};

} // namespace paratune
