#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace paratune {

/// Sequence numbers `first`..`last`, both included.
struct seq_range {
  uint64_t first = 0;
  uint64_t last = 0;
  bool operator==(const seq_range&) const = default;
};

/// The receiving side of a trial's relay (tools/paratune-relay): lines
/// numbered 1, 2, 3 ... arrive over a bus that may lose some, and again,
/// when fetched, from the relay's buffer or its log file. The sequencer
/// hands them on in order and exactly once, holds those that came early,
/// and says which numbers are still missing. Pure logic: the caller does
/// the fetching.
///
/// Its memory is bounded, since the numbers come from outside: a line
/// numbered more than `max_ahead` past the next one expected, or one that
/// would make more than `max_held` lines wait, is refused (a fetch gets it
/// again once the lines before it arrived).
class relay_sequencer {
public:
  struct limits {
    size_t max_held = 10000;
    uint64_t max_ahead = 1000000;
  };

  /// What offer() made of one line.
  enum class verdict {
    accepted,   ///< delivered now or held until the lines before it arrive
    duplicate,  ///< delivered or held already
    refused,    ///< number 0, too far ahead, past the end, or no room to hold it
  };

  relay_sequencer() = default;
  explicit relay_sequencer(limits l) : limits_(l) {}

  /// Takes line `seq`. The lines now deliverable, in order, are appended to
  /// `ready` (`seq`'s own and those held behind it).
  verdict offer(uint64_t seq, std::string line, std::vector<std::string>& ready);

  /// The relay said its last line is `last_seq` (its end message). False,
  /// and ignored, when that contradicts a line already taken or a previous
  /// end, or lies more than max_ahead past the next line expected.
  bool end(uint64_t last_seq);

  /// The numbers not yet seen below the highest one known (a held line or
  /// the end), in order. Without an end, a lost tail is not known here.
  std::vector<seq_range> missing() const;

  /// Gives up on every missing number below the highest held line: the
  /// held lines are appended to `ready` in order, the holes counted lost.
  /// The next line expected is then the one after the last held (or the end).
  void skip_missing(std::vector<std::string>& ready);

  /// The end is known and every line up to it was delivered or given up.
  bool complete() const { return end_ && next_ > *end_; }

  uint64_t next() const { return next_; }
  std::optional<uint64_t> end_seq() const { return end_; }
  size_t held() const { return held_.size(); }
  uint64_t delivered() const { return delivered_; }
  uint64_t duplicates() const { return duplicates_; }
  uint64_t refused() const { return refused_; }
  uint64_t lost() const { return lost_; }

private:
  void drain(std::vector<std::string>& ready);

  limits limits_;
  uint64_t next_ = 1;                       ///< the next number to deliver
  std::optional<uint64_t> end_;
  std::map<uint64_t, std::string> held_;    ///< arrived early, above next_
  uint64_t delivered_ = 0, duplicates_ = 0, refused_ = 0, lost_ = 0;
};

} // namespace paratune
