#include "adapters/maxtext/step_line.hpp"

#include <string>
#include <vector>

#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

// metric_logger.py:172 (maxtext_rules_commit): the ramp-up marker is the
// line's first part.
constexpr std::string_view rampup_marker = "[Rampup Batch Size Phase]";
constexpr std::string_view step_marker = "completed step:";
// metric_logger.py:176: the steps around the profiler's start and stop.
constexpr std::string_view profiler_marker = "completed profiler activation/deactivation step:";

// The number a value starts with, if it is one.
std::optional<double> number(std::string_view value) { return scan::leading_double(value); }

void take_value(maxtext_step& s, std::string_view key, std::string_view value) {
  // Forks pad the key before its colon ("TFLOP/s       : "): trimmed already.
  if (key == "seconds")
    s.seconds = number(value);
  else if (key == "TFLOP/s/device" || key == "TFLOP/s")  // TFLOP/s: the 2023 form
    s.tflops_per_device = number(value);
  else if (key == "Tokens/s/device")
    s.tokens_per_s_per_device = number(value);
  else if (key == "total_weights")
    s.total_weights = number(value);
  else if (key == "loss")
    s.loss = number(value);
  else if (key == "lm_loss")
    s.lm_loss = number(value);
  else if (key == "perplexity")
    s.perplexity = number(value);
  else if (key == "live slice count")
    if (const auto n = scan::leading_int(value))
      s.live_slices = int(*n);
}

} // namespace

std::optional<maxtext_step> read_step_line(std::string_view text, int64_t line) {
  std::string_view rest = scan::trim(text);
  maxtext_step s;
  s.line = line;
  if (scan::consume(rest, rampup_marker)) {
    s.rampup = true;
    rest = scan::trim_left(rest);
    scan::consume(rest, ",");
    rest = scan::trim_left(rest);
  }
  if (scan::consume(rest, profiler_marker))
    s.profiler_boundary = true;
  else if (!scan::consume(rest, step_marker))
    return std::nullopt;
  std::string_view after = rest;
  const auto step = scan::read_int(after);
  if (!step || *step < 0)
    return std::nullopt;
  s.step = *step;
  after = scan::trim_left(after);
  if (!after.empty() && after.front() != ',')
    return std::nullopt;  // "completed step: 3abc" is not MaxText's
  std::vector<line_values::value_type> pieces;
  // The parts are ", "-joined (metric_logger.py: ", ".join(log_parts)); no
  // value holds a comma.
  while (!after.empty()) {
    scan::consume(after, ",");
    const std::size_t comma = after.find(',');
    const std::string_view part = scan::trim(after.substr(0, comma));
    after = comma == std::string_view::npos ? std::string_view() : after.substr(comma);
    std::string_view key, value;
    if (part.empty() || !scan::split_key_value(part, key, value))
      continue;
    pieces.emplace_back(key, value);
    take_value(s, key, value);
  }
  s.values.assign({}, pieces);
  if (!s.profiler_boundary && !s.seconds)
    return std::nullopt;  // every form prints the step's seconds
  if (s.rampup)
    s.phase = step_phase::rampup;
  if (s.profiler_boundary)
    s.phase = step_phase::profiler_boundary;
  return s;
}

} // namespace paratune
