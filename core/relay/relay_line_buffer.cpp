#include "core/relay/relay_line_buffer.hpp"

#include <algorithm>

namespace paratune {

uint64_t relay_line_buffer::append(std::string line) {
  bytes_ += line.size();
  lines_.push_back(std::move(line));
  while (lines_.size() > 1 && (lines_.size() > max_lines_ || bytes_ > max_bytes_)) {
    bytes_ -= lines_.front().size();
    lines_.pop_front();
    ++first_seq_;
  }
  return last_seq();
}

std::vector<std::pair<uint64_t, std::string>> relay_line_buffer::range(uint64_t first, uint64_t last,
                                                                      size_t max_lines,
                                                                      size_t max_bytes) const {
  std::vector<std::pair<uint64_t, std::string>> out;
  if (lines_.empty())
    return out;
  const uint64_t from = std::max(first, first_seq_);
  const uint64_t to = std::min(last, last_seq());
  size_t bytes = 0;
  for (uint64_t seq = from; seq <= to && out.size() < max_lines; ++seq) {
    const auto& line = lines_[seq - first_seq_];
    if (!out.empty() && bytes + line.size() > max_bytes)
      break;
    bytes += line.size();
    out.emplace_back(seq, line);
  }
  return out;
}

} // namespace paratune
