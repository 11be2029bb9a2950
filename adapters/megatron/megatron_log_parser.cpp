#include "adapters/megatron/megatron_log_parser.hpp"

#include <algorithm>

#include "adapters/megatron/error_classifier.hpp"
#include "adapters/megatron/iteration_line.hpp"
#include "adapters/megatron/line_prefix.hpp"
#include "adapters/megatron/memory_line.hpp"
#include "adapters/megatron/startup_lines.hpp"
#include "adapters/megatron/text_scan.hpp"
#include "adapters/megatron/theory_lines.hpp"

namespace paratune {

namespace {

// How far (in lines) the `assert` source may precede a bare AssertionError:
// Python prints it right before, but other ranks' lines may interleave.
constexpr int64_t max_assert_distance = 4;

} // namespace

void megatron_log_parser::feed(std::string_view bytes) {
  splitter_.feed(bytes, [this](std::string_view line) { consume_line(line); });
  log_.partial = splitter_.cut_lines() > 0;
}

void megatron_log_parser::finish() {
  splitter_.finish([this](std::string_view line) { consume_line(line); });
  log_.partial = splitter_.cut_lines() > 0;
}

void megatron_log_parser::consume_line(std::string_view raw) {
  const int64_t line = ++log_.lines;
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  const std::string_view text = strip_line_prefixes(raw);
  // Block lines (argument dump, timer entries) keep their indentation, which
  // is what tells them apart; every other reader works on trimmed text.
  if (read_block_line(text)) return;
  const std::string_view trimmed = scan::trim(text);
  if (trimmed.empty()) return;
  if (read_known_line(text, trimmed, line)) return;
  read_error(text, trimmed, line);
}

bool megatron_log_parser::read_block_line(std::string_view text) {
  if (text.size() < 3 || text[0] != ' ') return false;
  return (in_args_ && read_arg(text)) || (timer_block_ && read_timer_entry(text));
}

bool megatron_log_parser::read_arg(std::string_view text) {
  std::string_view name, value;
  if (!parse_arg_line(text, name, value)) return false;
  log_.args.insert_or_assign(std::string(name), std::string(value));
  return true;
}

bool megatron_log_parser::read_timer_entry(std::string_view text) {
  auto& timers = log_.timers.back().timers;
  if (*timer_block_ != timer_block::all_ranks) {
    timer_value v;
    if (!parse_timer_entry(text, v)) return false;
    timers.push_back(std::move(v));
    return true;
  }
  // `all`: a name line, then one line per rank; keep the extremes.
  if (const auto t = parse_all_ranks_time(text); t && !timers.empty()) {
    auto& v = timers.back();
    v.min_ms = all_ranks_timer_open_ ? std::min(*v.min_ms, *t) : *t;
    v.max_ms = all_ranks_timer_open_ ? std::max(v.max_ms, *t) : *t;
    all_ranks_timer_open_ = true;
    return true;
  }
  if (const auto name = parse_all_ranks_name(text)) {
    timers.push_back(timer_value{std::string(*name), std::nullopt, 0});
    all_ranks_timer_open_ = false;
    return true;
  }
  return false;
}

// Dispatches on the first character so that a typical line is compared with
// one or two candidate formats, not all of them.
bool megatron_log_parser::read_known_line(std::string_view text, std::string_view trimmed,
                                          int64_t line) {
  switch (trimmed[0]) {
  case '[': return read_bracketed(text, trimmed, line);
  case 'i': return read_iteration(text, line);
  case 'v': {
    validation_record v;
    if (!parse_validation_line(trimmed, v)) return false;
    v.line = line;
    log_.validations.push_back(std::move(v));
    return true;
  }
  case '(':
  case 'm': return read_timer_header(trimmed, line);
  case 't': return read_one_line_timers(trimmed, line) || read_timer_header(trimmed, line);
  case 'N':
  case 'T':
  case 'A': return parse_theory_line(trimmed, log_.theory);
  default: return read_startup_line(trimmed, line);
  }
}

bool megatron_log_parser::read_bracketed(std::string_view text, std::string_view trimmed,
                                         int64_t line) {
  if (trimmed.size() > 1 && scan::is_digit(trimmed[1])) return read_iteration(text, line);
  if (trimmed.starts_with("[Rank ")) return read_memory(trimmed, line);
  datetime_marker m;
  if (!parse_datetime_marker(trimmed, m)) return false;
  m.line = line;
  log_.markers.push_back(std::move(m));
  return true;
}

bool megatron_log_parser::read_iteration(std::string_view text, int64_t line) {
  iteration_record r;
  if (!parse_iteration_line(text, r)) return false;
  r.line = line;
  timer_block_.reset();  // a new logging interval: the last timer block is over
  last_iteration_ = r.iteration;
  log_.iterations.push_back(std::move(r));
  const iteration_record& rec = log_.iterations.back();
  if (on_iteration) on_iteration(rec);
  // Old versions report NaN losses only through this counter.
  if (rec.nan_iterations > 0) {
    add_error(log_error_kind::nan, line,
              std::to_string(rec.nan_iterations) + " nan iteration(s) in the interval"
                " ending at iteration " + std::to_string(rec.iteration));
  }
  return true;
}

bool megatron_log_parser::read_memory(std::string_view trimmed, int64_t line) {
  const std::size_t before = log_.memory.size();
  if (parse_memory_line(trimmed, line, log_.memory) == 0) return false;
  if (on_memory)
    for (std::size_t i = before; i < log_.memory.size(); ++i) on_memory(log_.memory[i]);
  return true;
}

bool megatron_log_parser::read_timer_header(std::string_view trimmed, int64_t line) {
  const auto block = parse_timer_header(trimmed);
  if (!block) return false;
  timer_block_ = block;
  all_ranks_timer_open_ = false;
  log_.timers.push_back(timer_report{last_iteration_, line, {}});
  return true;
}

bool megatron_log_parser::read_one_line_timers(std::string_view trimmed, int64_t line) {
  timer_report r;
  if (!parse_one_line_timers(trimmed, r)) return false;
  r.iteration = last_iteration_;
  r.line = line;
  log_.timers.push_back(std::move(r));
  timer_block_.reset();  // its entries are all on this line
  return true;
}

bool megatron_log_parser::read_startup_line(std::string_view trimmed, int64_t line) {
  switch (trimmed[0]) {
  case '-':
    if (const auto marker = parse_args_marker(trimmed)) {
      in_args_ = *marker == args_marker::begin;
      return true;
    }
    return false;
  case 'u': {
    parallel_layout layout;
    if (!parse_world_size_line(trimmed, layout)) return false;
    layout.line = line;
    log_.layout = layout;
    return true;
  }
  case 's':
    if (const auto n = parse_microbatches_line(trimmed)) {
      log_.num_microbatches = n;
      return true;
    }
    return false;
  case '>': return parse_rank_parameters_line(trimmed, log_.parameters) > 0;
  case 'e':
    if (const auto reason = parse_exit_line(trimmed)) {
      log_.exit_reason = std::string(*reason);
      return true;
    }
    return false;
  default: return false;
  }
}

void megatron_log_parser::read_error(std::string_view text, std::string_view trimmed,
                                     int64_t line) {
  // A bare `AssertionError` says nothing; the traceback source line just
  // before it holds the condition that failed.
  if (trimmed.starts_with("assert ")) {
    last_assert_.assign(trimmed);
    last_assert_line_ = line;
    return;
  }
  const auto kind = classify_error_line(text);
  if (!kind) return;
  const auto type = exception_type(trimmed);
  // torchrun's ChildFailedError only repeats a failure already reported.
  if (type && is_launcher_failure(*type) && !log_.errors.empty()) return;
  std::string message(trimmed);
  if (type && type->size() == trimmed.size() && line - last_assert_line_ <= max_assert_distance)
    message += " (" + last_assert_ + ")";
  add_error(*kind, line, std::move(message));
}

void megatron_log_parser::add_error(log_error_kind kind, int64_t line, std::string message) {
  // Every rank prints the same failure; one record per distinct text.
  if (log_.errors.size() >= max_errors || !seen_errors_.insert(message).second) return;
  log_.errors.push_back(log_error{kind, line, std::move(message)});
  if (on_error) on_error(log_.errors.back());
}

} // namespace paratune
