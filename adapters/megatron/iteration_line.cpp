#include "adapters/megatron/iteration_line.hpp"

#include "adapters/megatron/line_prefix.hpp"
#include "adapters/megatron/piece_collector.hpp"
#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

constexpr std::string_view elapsed_key = "elapsed time per iteration (ms)";
constexpr std::string_view nan_key = "number of nan iterations";

// Megatron prints "throughput per GPU (TFLOP/s/GPU)"; Megatron-DeepSpeed and
// other forks print the same estimate under shorter names.
bool is_tflops_key(std::string_view key) {
  return key == "throughput per GPU (TFLOP/s/GPU)" || key == "TFLOPs"
         || key == "TFLOP/s/GPU" || key == "tflops" || key == "TFLOPS";
}

// Forks that print `iteration time: 270.125 s samples/sec: 3.8` give the
// iteration time in seconds inside a longer key (split at the last ": ").
std::optional<double> fork_iteration_seconds(std::string_view key) {
  std::string_view rest = key;
  if (!scan::consume(rest, "iteration time: ")) return std::nullopt;
  const auto seconds = scan::read_double(rest);
  if (!seconds || !scan::trim_left(rest).starts_with("s")) return std::nullopt;
  return seconds;
}

// "iteration       43/     100" -> 43, 100
bool read_counter(std::string_view& s, iteration_record& out) {
  if (!scan::consume(s, "iteration ")) return false;
  const auto it = scan::read_int(s);
  if (!it) return false;
  s = scan::trim_left(s);
  if (!scan::consume(s, "/")) return false;
  const auto total = scan::read_int(s);
  if (!total) return false;
  s = scan::trim_left(s);
  if (!s.empty() && s.front() != '|') return false;
  out.iteration = *it;
  out.train_iters = *total;
  return true;
}

void read_value(iteration_record& out, std::string_view key, std::string_view value,
                std::optional<double>& fork_seconds) {
  if (key == elapsed_key) {
    if (const auto v = scan::leading_double(value)) out.elapsed_ms = *v;
  } else if (is_tflops_key(key)) {
    out.tflops_per_gpu = scan::leading_double(value);
  } else if (key == nan_key) {
    out.nan_iterations = scan::leading_int(value).value_or(0);
  } else if (!fork_seconds) {
    fork_seconds = fork_iteration_seconds(key);
  }
}

} // namespace

bool parse_iteration_line(std::string_view text, iteration_record& out) {
  std::string_view s = text;
  const auto stamp = take_timestamp(s);
  s = scan::trim_left(s);
  if (!read_counter(s, out)) return false;
  out.elapsed_ms = 0;
  out.tflops_per_gpu.reset();
  out.nan_iterations = 0;
  bool saw_elapsed = false;
  std::optional<double> fork_seconds;
  piece_collector pieces;
  scan::for_each_piece(s, [&](std::string_view piece) {
    std::string_view key, value;
    if (!scan::split_key_value(piece, key, value)) {
      key = piece;  // keep a bare piece as a key with no value
      value = {};
    }
    saw_elapsed = saw_elapsed || key == elapsed_key;
    read_value(out, key, value, fork_seconds);
    pieces.add(key, value);
  });
  out.values.assign(stamp.value_or(std::string_view{}), pieces.pieces());
  if (!saw_elapsed && fork_seconds) out.elapsed_ms = *fork_seconds * 1000.0;
  return true;
}

bool parse_validation_line(std::string_view text, validation_record& out) {
  std::string_view s = scan::trim_left(text);
  if (!s.starts_with("validation")) return false;
  const std::size_t bar = s.find('|');
  const std::string_view head = s.substr(0, bar);
  const std::size_t at = head.find(" loss at ");
  if (at == std::string_view::npos || bar == std::string_view::npos) return false;
  std::string_view where = head.substr(at + 9);
  out.iteration = 0;
  if (scan::consume(where, "iteration ")) out.iteration = scan::read_int(where).value_or(0);
  piece_collector pieces;
  scan::for_each_piece(s.substr(bar + 1), [&](std::string_view piece) {
    std::string_view key, value;
    if (scan::split_key_value(piece, key, value)) pieces.add(key, value);
  });
  out.values.assign({}, pieces.pieces());
  return true;
}

} // namespace paratune
