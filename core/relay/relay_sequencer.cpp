#include "core/relay/relay_sequencer.hpp"

namespace paratune {

relay_sequencer::verdict relay_sequencer::offer(uint64_t seq, std::string line,
                                                std::vector<std::string>& ready) {
  if (seq < next_ && seq != 0) {
    ++duplicates_;
    return verdict::duplicate;
  }
  if (held_.count(seq)) {
    ++duplicates_;
    return verdict::duplicate;
  }
  const bool too_far = seq == 0 || seq - next_ > limits_.max_ahead || (end_ && seq > *end_);
  // The next line is always taken, so that a full buffer drains.
  if (too_far || (seq != next_ && held_.size() >= limits_.max_held)) {
    ++refused_;
    return verdict::refused;
  }
  held_.emplace(seq, std::move(line));
  drain(ready);
  return verdict::accepted;
}

void relay_sequencer::drain(std::vector<std::string>& ready) {
  for (auto it = held_.begin(); it != held_.end() && it->first == next_; it = held_.erase(it)) {
    ready.push_back(std::move(it->second));
    ++next_;
    ++delivered_;
  }
}

bool relay_sequencer::end(uint64_t last_seq) {
  const bool below_taken = last_seq + 1 < next_ || (!held_.empty() && held_.rbegin()->first > last_seq);
  const bool contradicts = end_ && *end_ != last_seq;
  if (below_taken || contradicts || (last_seq >= next_ && last_seq - next_ > limits_.max_ahead))
    return false;
  end_ = last_seq;
  return true;
}

std::vector<seq_range> relay_sequencer::missing() const {
  std::vector<seq_range> holes;
  uint64_t from = next_;
  for (const auto& [seq, _] : held_) {
    if (seq > from)
      holes.push_back({from, seq - 1});
    from = seq + 1;
  }
  if (end_ && *end_ >= from)
    holes.push_back({from, *end_});
  return holes;
}

void relay_sequencer::skip_missing(std::vector<std::string>& ready) {
  for (auto& [seq, line] : held_) {
    lost_ += seq - next_;
    ready.push_back(std::move(line));
    next_ = seq + 1;
    ++delivered_;
  }
  held_.clear();
  if (end_ && *end_ >= next_) {
    lost_ += *end_ + 1 - next_;
    next_ = *end_ + 1;
  }
}

} // namespace paratune
