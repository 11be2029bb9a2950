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

} // namespace paratune
