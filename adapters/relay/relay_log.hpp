#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace paratune {

/// A relay's log file in the trial's directory: every line the relay gave
/// a number to, one text line each, in order, so that line N of the file is
/// the line numbered N. It outlives the relay: a receiver reads the lines
/// it missed from it once the relay no longer answers.
class relay_log_writer {
public:
  /// Creates (truncates) `path`; the error's text when it cannot.
  static std::optional<std::string> open(relay_log_writer& w, const std::string& path);
  ~relay_log_writer();

  /// Appends `line` and flushes it, so that a relay killed later loses
  /// nothing it numbered. False when the write failed (a full disk).
  bool append(const std::string& line);

private:
  std::FILE* file_ = nullptr;
};

/// Lines `first`..`last` of a relay log (those it has), numbered, at most
/// `max_lines`; a line longer than `max_line_bytes` is cut to it, and a
/// last line without its newline (still being written) is not taken.
/// nullopt when the file cannot be read.
std::optional<std::vector<std::pair<uint64_t, std::string>>> read_relay_log(
    const std::string& path, uint64_t first, uint64_t last, size_t max_lines,
    size_t max_line_bytes);

} // namespace paratune
