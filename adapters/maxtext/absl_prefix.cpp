#include "adapters/maxtext/absl_prefix.hpp"

namespace paratune {

namespace {

bool digits_at(std::string_view s, std::size_t at, std::size_t n) {
  if (s.size() < at + n)
    return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (s[i] < '0' || s[i] > '9')
      return false;
  return true;
}

} // namespace

std::string_view strip_absl_prefix(std::string_view line) {
  // "I1127 12:00:00.123456": letter, MMDD, space, HH:MM:SS.micro (21 bytes).
  if (line.size() < 22 || (line[0] != 'I' && line[0] != 'W' && line[0] != 'E' && line[0] != 'F'))
    return line;
  if (!digits_at(line, 1, 4) || line[5] != ' ' || !digits_at(line, 6, 2) || line[8] != ':'
      || !digits_at(line, 9, 2) || line[11] != ':' || !digits_at(line, 12, 2) || line[14] != '.'
      || !digits_at(line, 15, 6))
    return line;
  // Then the thread id, padded with spaces (absl pads it to 7), and
  // "file:line] ".
  std::size_t i = 21;
  while (i < line.size() && line[i] == ' ')
    ++i;
  const std::size_t id = i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9')
    ++i;
  if (i == id || i >= line.size() || line[i] != ' ')
    return line;
  const std::size_t close = line.find("] ", i);
  if (close == std::string_view::npos)
    return line.ends_with("]") ? std::string_view() : line;
  return line.substr(close + 2);
}

} // namespace paratune
