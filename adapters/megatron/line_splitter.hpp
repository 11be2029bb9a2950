#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace paratune {

/// Cuts a byte stream, arriving in chunks of any size, into lines. Complete
/// lines inside a chunk are handed out without copying; only a line split
/// across chunks is buffered. Lines longer than `max_line` bytes are cut to
/// their first `max_line` bytes (binary junk without newlines must not grow
/// the buffer without bound), so every chunking yields the same lines.
class line_splitter {
public:
  explicit line_splitter(std::size_t max_line) : max_line_(max_line) {}

  /// Calls `on_line(std::string_view)` for every line `bytes` completes,
  /// without its '\n'.
  template <class OnLine>
  void feed(std::string_view bytes, OnLine&& on_line) {
    while (!bytes.empty()) {
      const void* nl = std::memchr(bytes.data(), '\n', bytes.size());
      if (!nl) {
        append(bytes);
        return;
      }
      const auto n = static_cast<std::size_t>(static_cast<const char*>(nl) - bytes.data());
      const std::string_view head = bytes.substr(0, n);
      bytes.remove_prefix(n + 1);
      if (pending_.empty() && !cut_) {
        on_line(capped(head));
      } else {
        append(head);
        on_line(std::string_view(pending_));
        pending_.clear();
        cut_ = false;
      }
    }
  }

  /// Hands out a last line that has no '\n', if any.
  template <class OnLine>
  void finish(OnLine&& on_line) {
    if (pending_.empty()) return;
    on_line(std::string_view(pending_));
    pending_.clear();
    cut_ = false;
  }

  /// How many lines were cut at `max_line` so far.
  int64_t cut_lines() const { return cut_lines_; }

private:
  std::string_view capped(std::string_view line) {
    if (line.size() <= max_line_) return line;
    ++cut_lines_;
    return line.substr(0, max_line_);
  }

  void append(std::string_view part) {
    const std::size_t room = max_line_ - std::min(max_line_, pending_.size());
    if (part.size() > room) {
      if (!cut_) ++cut_lines_;
      cut_ = true;
      part = part.substr(0, room);
    }
    pending_.append(part);
  }

  std::size_t max_line_;
  std::string pending_;
  bool cut_ = false;  ///< the pending line already lost bytes
  int64_t cut_lines_ = 0;
};

} // namespace paratune
