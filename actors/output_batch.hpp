#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "messages/wire_types.hpp"

namespace paratune {

/// A running trial's output lines gathered for "output.<sid>.<n>": one bus
/// message per batch instead of one per line. A batch is due when it holds
/// max_lines or its oldest line waited max_wait; whatever is left is taken
/// when the trial ends, before its result is recorded, so a reader of the
/// output has every line before the trial_result.
class output_batch {
public:
  static constexpr std::size_t max_lines = 64;
  static constexpr auto max_wait = std::chrono::milliseconds(1000);

  explicit output_batch(int trial) : trial_(trial) {}

  /// Adds a line; true when the batch is due.
  bool add(std::string line) {
    if (lines_.empty())
      oldest_ = std::chrono::steady_clock::now();
    lines_.push_back(std::move(line));
    return lines_.size() >= max_lines || std::chrono::steady_clock::now() - oldest_ >= max_wait;
  }

  /// The lines gathered since the last take, or none when there are none.
  std::optional<wire::trial_output> take() {
    if (lines_.empty())
      return std::nullopt;
    wire::trial_output out{trial_, next_line_, std::move(lines_)};
    next_line_ += int64_t(out.lines.size());
    lines_.clear();
    return out;
  }

private:
  int trial_;
  int64_t next_line_ = 1;
  std::vector<std::string> lines_;
  std::chrono::steady_clock::time_point oldest_;
};

} // namespace paratune
