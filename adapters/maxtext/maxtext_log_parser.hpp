#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "adapters/maxtext/maxtext_log.hpp"
#include "adapters/megatron/line_splitter.hpp"

namespace paratune {

/// Streaming reader of a MaxText run's output (train.py's stdout and
/// stderr), every form of its step line from 2023 to today, with or without
/// absl's prefix, behind the launcher prefixes Megatron-LM's reader strips
/// too. The same shape as megatron_log_parser: feed bytes in chunks of any
/// size, finish() once; the result does not depend on the chunking. Never
/// throws on content. Steps' phases are set by finish() (score_steps): a
/// step's phase depends on the steps after it.
class maxtext_log_parser {
public:
  static constexpr std::size_t max_line_bytes = 64 * 1024;
  static constexpr std::size_t max_errors = 10000;

  void feed(std::string_view bytes);
  /// Reads a last line without newline and scores the steps.
  void finish();
  const maxtext_log& log() const { return log_; }

  /// Called as each step and error is read (live consumers; the step's
  /// phase is not final yet, except rampup and profiler_boundary).
  std::function<void(const maxtext_step&)> on_step;
  std::function<void(const log_error&)> on_error;

private:
  void consume_line(std::string_view raw);

  maxtext_log log_;
  line_splitter splitter_{max_line_bytes};
  std::unordered_set<std::string> seen_errors_;
};

/// Reads a whole MaxText log file. Throws input_error naming the file when
/// it cannot be opened or read.
maxtext_log parse_maxtext_log_file(const std::string& path);

} // namespace paratune
