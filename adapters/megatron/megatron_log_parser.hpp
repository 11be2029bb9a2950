#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "adapters/megatron/line_splitter.hpp"
#include "adapters/megatron/megatron_log.hpp"
#include "adapters/megatron/timer_lines.hpp"

namespace paratune {

/// Streaming reader of Megatron-LM stdout/stderr, every version from
/// core_v0.4 (and the pre-core 2021 code) to HEAD and the common forks
/// (notes/input_formats.md §1–2). Feed it bytes as they arrive, in chunks of
/// any size; the result does not depend on the chunking. Never throws on
/// content: junk lines are skipped, over-long lines are cut (log().partial).
class megatron_log_parser {
public:
  /// Lines longer than this are cut to it and mark the log partial.
  static constexpr std::size_t max_line_bytes = 64 * 1024;
  /// Distinct errors kept; a log that repeats thousands of different
  /// failures has told its story long before.
  static constexpr std::size_t max_errors = 10000;

  /// Parses every line `bytes` completes; a partial line waits for its newline.
  void feed(std::string_view bytes);
  /// Parses a trailing line that has no newline. Call once at end of input.
  void finish();
  const megatron_log& log() const { return log_; }

  /// Called as each record is appended to log() (live consumers).
  std::function<void(const iteration_record&)> on_iteration;
  std::function<void(const memory_record&)> on_memory;
  std::function<void(const log_error&)> on_error;

private:
  void consume_line(std::string_view raw);
  bool read_block_line(std::string_view text);
  bool read_arg(std::string_view text);
  bool read_timer_entry(std::string_view text);
  bool read_known_line(std::string_view text, std::string_view trimmed, int64_t line);
  bool read_bracketed(std::string_view text, std::string_view trimmed, int64_t line);
  bool read_iteration(std::string_view text, int64_t line);
  bool read_memory(std::string_view trimmed, int64_t line);
  bool read_timer_header(std::string_view trimmed, int64_t line);
  bool read_one_line_timers(std::string_view trimmed, int64_t line);
  bool read_startup_line(std::string_view trimmed, int64_t line);
  void read_error(std::string_view text, std::string_view trimmed, int64_t line);
  void add_error(log_error_kind kind, int64_t line, std::string message);

  megatron_log log_;
  line_splitter splitter_{max_line_bytes};
  bool in_args_ = false;                   ///< between the argument dump markers
  std::optional<timer_block> timer_block_;  ///< open block; its entries go to log_.timers.back()
  bool all_ranks_timer_open_ = false;      ///< an `all` block timer has a rank value yet
  int64_t last_iteration_ = 0;
  std::string last_assert_;                ///< traceback source of the last `assert`
  int64_t last_assert_line_ = -1000;
  std::unordered_set<std::string> seen_errors_;
};

/// Reads a whole log file. Throws paratune::input_error naming the file when
/// it cannot be opened or read.
megatron_log parse_megatron_log_file(const std::string& path);

} // namespace paratune
