#include "adapters/maxtext/maxtext_log_parser.hpp"

#include "adapters/maxtext/absl_prefix.hpp"
#include "adapters/maxtext/maxtext_errors.hpp"
#include "adapters/maxtext/step_line.hpp"
#include "adapters/maxtext/step_scoring.hpp"
#include "adapters/megatron/line_prefix.hpp"
#include "adapters/megatron/log_chunks.hpp"
#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

// metric_logger.py: write_setup_info_to_tensorboard logs the model's size.
constexpr std::string_view parameters_marker = "number parameters:";
// XLA's profiler (profiler_session.cc) when MaxText activates it.
constexpr std::string_view profiler_started = "Profiler session started";

} // namespace

void maxtext_log_parser::feed(std::string_view bytes) {
  splitter_.feed(bytes, [this](std::string_view line) { consume_line(line); });
}

void maxtext_log_parser::finish() {
  splitter_.finish([this](std::string_view line) { consume_line(line); });
  log_.partial = splitter_.cut_lines() > 0;
  score_steps(log_.steps);
}

void maxtext_log_parser::consume_line(std::string_view raw) {
  const int64_t line = ++log_.lines;
  const std::string_view text = strip_absl_prefix(strip_line_prefixes(raw));
  if (auto step = read_step_line(text, line)) {
    log_.steps.push_back(std::move(*step));
    if (on_step)
      on_step(log_.steps.back());
    return;
  }
  const std::string_view trimmed = scan::trim(text);
  if (scan::contains(trimmed, profiler_started)) {
    ++log_.profiler_sessions;
    return;
  }
  if (trimmed.starts_with(parameters_marker)) {
    std::string_view rest = trimmed.substr(parameters_marker.size());
    if (const auto b = scan::read_double(rest))
      log_.parameters_billion = *b;
    return;
  }
  const auto kind = classify_maxtext_error(trimmed);
  if (!kind || log_.errors.size() >= max_errors)
    return;
  // A failure is printed by every host and again in each traceback: once.
  std::string message(trimmed);
  if (!seen_errors_.insert(message).second)
    return;
  log_.errors.push_back({*kind, line, std::move(message)});
  if (on_error)
    on_error(log_.errors.back());
}

maxtext_log parse_maxtext_log_file(const std::string& path) {
  maxtext_log_parser parser;
  read_log_chunks(path, "MaxText log", [&](std::string_view chunk) { parser.feed(chunk); });
  parser.finish();
  return parser.log();
}

} // namespace paratune
