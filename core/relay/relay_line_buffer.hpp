#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace paratune {

/// A relay's recent lines, numbered from 1 in the order they were appended,
/// kept so that a receiver that missed some can fetch them again. Bounded
/// in lines and in bytes: the oldest lines go first (they are still in the
/// relay's log file).
class relay_line_buffer {
public:
  relay_line_buffer(size_t max_lines, size_t max_bytes)
    : max_lines_(max_lines), max_bytes_(max_bytes) {}

  /// Keeps `line` and returns its number.
  uint64_t append(std::string line);

  /// The held lines numbered `first`..`last`, in order, at most `max_lines`
  /// of them and about `max_bytes` of text (always at least one line when
  /// one is held in the range): a fetch reply has a bounded size.
  std::vector<std::pair<uint64_t, std::string>> range(uint64_t first, uint64_t last,
                                                      size_t max_lines, size_t max_bytes) const;

  /// The number of the last line appended (0 before the first).
  uint64_t last_seq() const { return first_seq_ + lines_.size() - 1; }
  /// The number of the oldest line still held.
  uint64_t first_seq() const { return first_seq_; }
  size_t size() const { return lines_.size(); }
  size_t bytes() const { return bytes_; }

private:
  size_t max_lines_;
  size_t max_bytes_;
  std::deque<std::string> lines_;
  uint64_t first_seq_ = 1;  ///< the number of lines_.front()
  size_t bytes_ = 0;
};

} // namespace paratune
