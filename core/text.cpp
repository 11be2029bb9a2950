#include "core/text.hpp"

#include <cctype>

namespace paratune {

namespace {

// Maps every byte through `f`; the cast to unsigned char keeps bytes above
// 127 out of std::tolower's undefined range.
template <typename F>
std::string map_bytes(std::string_view s, F f) {
  std::string out(s);
  for (auto& c : out)
    c = static_cast<char>(f(static_cast<unsigned char>(c)));
  return out;
}

} // namespace

std::string lower(std::string_view s) {
  return map_bytes(s, [](unsigned char c) { return std::tolower(c); });
}

std::string upper(std::string_view s) {
  return map_bytes(s, [](unsigned char c) { return std::toupper(c); });
}

std::string trim(std::string_view s, std::string_view blanks) {
  const auto b = s.find_first_not_of(blanks);
  if (b == std::string_view::npos)
    return {};
  const auto e = s.find_last_not_of(blanks);
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    auto end = s.find(sep, pos);
    if (end == std::string_view::npos)
      end = s.size();
    out.emplace_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0)
      out += sep;
    out += items[i];
  }
  return out;
}

namespace {

bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }

} // namespace

bool is_identifier(std::string_view s) {
  if (s.empty() || ascii_digit(s.front()))
    return false;
  for (char c : s)
    if (!(ascii_letter(c) || ascii_digit(c) || c == '_'))
      return false;
  return true;
}

bool is_plain_name(std::string_view s, size_t max_size) {
  if (s.empty() || s.size() > max_size)
    return false;
  for (char c : s)
    if (!(ascii_letter(c) || ascii_digit(c) || c == '_' || c == '-' || c == '.'))
      return false;
  return true;
}

std::string printable_excerpt(std::string_view s, size_t max_bytes) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < s.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += char(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > max_bytes)
    out += "...";
  return out;
}

namespace {

/// The length of the well-formed UTF-8 sequence at the start of `s`
/// (RFC 3629: no overlongs, no surrogates, at most U+10FFFF), or 0.
size_t utf8_sequence_length(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto cont = [&](size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2))
      return 0;
    if ((c == 0xE0 && b(1) < 0xA0) || (c == 0xED && b(1) > 0x9F))
      return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3))
      return 0;
    if ((c == 0xF0 && b(1) < 0x90) || (c == 0xF4 && b(1) > 0x8F))
      return 0;
    return 4;
  }
  return 0;
}

} // namespace

std::string utf8_escaped(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    if (const auto n = utf8_sequence_length(s); n > 0) {
      out.append(s.substr(0, n));
      s.remove_prefix(n);
      continue;
    }
    const auto c = static_cast<unsigned char>(s.front());
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
    s.remove_prefix(1);
  }
  return out;
}

} // namespace paratune
