#include "core/last_lines.hpp"

#include <vector>

namespace paratune {

namespace {

bool blank_line(const std::string& line) {
  return line.find_first_not_of(" \t\r\v\f") == std::string::npos;
}

} // namespace

std::string last_lines(const std::deque<std::string>& lines, std::size_t max_lines,
                       std::size_t max_bytes) {
  std::vector<const std::string*> kept; // newest first
  std::size_t bytes = 0;
  for (auto it = lines.rbegin(); it != lines.rend() && kept.size() < max_lines; ++it) {
    if (blank_line(*it))
      continue;
    const std::size_t more = it->size() + (kept.empty() ? 0 : 1);
    if (!kept.empty() && bytes + more > max_bytes)
      break;
    bytes += more;
    kept.push_back(&*it);
  }
  std::string out;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it)
    out += (out.empty() ? "" : "\n") + **it;
  return out;
}

} // namespace paratune
