#include "adapters/megatron/timer_lines.hpp"

#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

// "forward-backward ......: " -> "forward-backward"; empty when the dot or
// space padding that Megatron's ljust(48, '.') adds is missing.
std::string_view padded_name(std::string_view left) {
  std::size_t n = left.size();
  if (n == 0 || (left[n - 1] != '.' && left[n - 1] != ' ')) return {};
  while (n > 0 && left[n - 1] == '.') --n;
  if (n == 0 || left[n - 1] != ' ') return {};
  return scan::trim_right(left.substr(0, n));
}

} // namespace

std::optional<timer_block> parse_timer_header(std::string_view trimmed) {
  if (trimmed == "(min, max) time across ranks (ms):") return timer_block::min_max;
  if (trimmed == "max time across ranks (ms):") return timer_block::max_only;
  if (trimmed == "times across ranks (ms):") return timer_block::all_ranks;
  return std::nullopt;
}

bool parse_timer_entry(std::string_view text, timer_value& out) {
  if (!text.starts_with("    ")) return false;
  const std::string_view s = scan::trim(text);
  const std::size_t colon = s.rfind(": ");
  if (colon == std::string_view::npos) return false;
  const std::string_view name = padded_name(s.substr(0, colon));
  if (name.empty()) return false;
  std::string_view value = scan::trim_left(s.substr(colon + 2));
  if (scan::consume(value, "(")) {
    const auto lo = scan::read_double(value);
    if (!lo || !scan::consume(value, ",")) return false;
    const auto hi = scan::read_double(value);
    if (!hi) return false;
    out.name.assign(name);
    out.min_ms = lo;
    out.max_ms = *hi;
    return true;
  }
  const auto v = scan::read_double(value);
  if (!v) return false;
  out.name.assign(name);
  out.min_ms.reset();
  out.max_ms = *v;
  return true;
}

std::optional<std::string_view> parse_all_ranks_name(std::string_view text) {
  if (text.size() < 4 || !text.starts_with("  ") || text[2] == ' ') return std::nullopt;
  const std::string_view s = scan::trim(text);
  if (s.size() < 2 || s.back() != ':') return std::nullopt;
  return s.substr(0, s.size() - 1);
}

std::optional<double> parse_all_ranks_time(std::string_view text) {
  std::string_view s = scan::trim_left(text);
  if (!scan::consume(s, "rank ")) return std::nullopt;
  if (!scan::read_int(s) || !scan::consume(s, ":")) return std::nullopt;
  return scan::read_double(s);
}

bool parse_one_line_timers(std::string_view trimmed, timer_report& out) {
  std::string_view s = trimmed;
  if (!scan::consume(s, "time (ms)")) return false;
  s = scan::trim_left(s);
  if (!scan::consume(s, "|")) return false;
  out.timers.clear();
  scan::for_each_piece(s, [&](std::string_view piece) {
    std::string_view key, value;
    if (!scan::split_key_value(piece, key, value)) return;
    if (const auto v = scan::leading_double(value))
      out.timers.push_back(timer_value{std::string(key), std::nullopt, *v});
  });
  return true;
}

} // namespace paratune
