#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

// Small string_view helpers for the Megatron log parser. Hand-written because
// the parser must read over a million lines a second and std::regex is two
// orders of magnitude too slow for that.
namespace paratune::scan {

/// Space, tab, CR or LF, as one bit test rather than four branches:
/// Megatron pads its columns with runs of spaces, so trimming runs on much
/// of every iteration line (with last_colon_space in text_scan.cpp, about
/// 20% more iteration lines per second in an interleaved A/B run).
inline bool is_space(char c) {
  constexpr uint64_t spaces = (1ull << ' ') | (1ull << '\t') | (1ull << '\r') | (1ull << '\n');
  const auto u = static_cast<unsigned char>(c);
  return u <= ' ' && ((spaces >> u) & 1);
}
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline std::string_view trim_left(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

inline std::string_view trim_right(std::string_view s) {
  std::size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  return s.substr(0, n);
}

inline std::string_view trim(std::string_view s) { return trim_right(trim_left(s)); }

/// Removes `prefix` from the front of `s` and returns true, or leaves `s`.
inline bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

/// Finds `needle` in `hay` with memmem (much faster than string_view::find
/// for the multi-byte needles the error scanner looks for).
std::size_t find(std::string_view hay, std::string_view needle);

inline bool contains(std::string_view hay, std::string_view needle) {
  return find(hay, needle) != std::string_view::npos;
}

/// Reads a decimal number (Python float formats: 1.5, 8.600000E-06, nan,
/// inf) at the start of `s` after spaces; advances `s` past it.
std::optional<double> read_double(std::string_view& s);

/// Reads an optionally signed integer at the start of `s` after spaces;
/// advances `s` past it.
std::optional<int64_t> read_int(std::string_view& s);

/// The number a value starts with ("13100.0/13240.9" -> 13100.0, "270.1 s" -> 270.1).
inline std::optional<double> leading_double(std::string_view s) { return read_double(s); }
inline std::optional<int64_t> leading_int(std::string_view s) { return read_int(s); }

/// Splits `piece` at its LAST ": " (keys hold spaces and parentheses, values
/// do not hold ": "); falls back to the last ':'. Both parts trimmed.
/// Returns false when there is no colon at all.
bool split_key_value(std::string_view piece, std::string_view& key, std::string_view& value);

/// Calls `fn(piece)` for every '|'-separated piece of `s`, trimmed, skipping
/// empty pieces.
template <class Fn>
void for_each_piece(std::string_view s, Fn&& fn) {
  while (!s.empty()) {
    const std::size_t bar = s.find('|');
    const std::string_view piece = trim(s.substr(0, bar));
    if (!piece.empty()) fn(piece);
    if (bar == std::string_view::npos) break;
    s.remove_prefix(bar + 1);
  }
}

} // namespace paratune::scan
