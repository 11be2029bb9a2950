#include "core/clipped_lines.hpp"

#include <vector>

namespace paratune {

namespace {

std::string printable_line(std::string_view line) {
  // Trimmed first: a tab or a CR at either end goes, not shown as '?'.
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  while (!line.empty() && blank(line.front()))
    line.remove_prefix(1);
  while (!line.empty() && blank(line.back()))
    line.remove_suffix(1);
  std::string out;
  for (char c : line)
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return out;
}

} // namespace

std::string clipped_lines(std::string_view text, std::size_t max_bytes) {
  std::vector<std::string> lines;
  std::size_t total = 0; // the bytes of every line, joined
  for (std::size_t start = 0; start <= text.size();) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    if (auto line = printable_line(text.substr(start, end - start)); !line.empty()) {
      total += (lines.empty() ? 0 : 2) + line.size();
      lines.push_back(std::move(line));
    }
    start = end + 1;
  }
  std::string out;
  for (const auto& line : lines) {
    const std::size_t joined = out.size() + (out.empty() ? 0 : 2) + line.size();
    if (joined > max_bytes) {
      if (out.empty()) { // the first line alone is too long: up to a word
        auto cut = line.rfind(' ', max_bytes);
        out = line.substr(0, cut == std::string::npos || cut == 0 ? max_bytes : cut);
      }
      break;
    }
    out += (out.empty() ? "" : "; ") + line;
  }
  if (out.size() < total)
    out += " [" + std::to_string(total - out.size()) + " more bytes cut]";
  return out;
}

} // namespace paratune
