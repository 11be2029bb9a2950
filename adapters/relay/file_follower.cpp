#include "adapters/relay/file_follower.hpp"

#include <array>
#include <cstdio>
#include <memory>
#include <utility>

namespace paratune {

std::vector<std::string> file_follower::new_lines() {
  std::vector<std::string> lines;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path_.c_str(), "rb"), &std::fclose);
  if (!f || std::fseek(f.get(), offset_, SEEK_SET) != 0)
    return lines;
  std::array<char, 64 * 1024> chunk;
  for (size_t n; (n = std::fread(chunk.data(), 1, chunk.size(), f.get())) > 0;) {
    offset_ += static_cast<long long>(n);
    for (size_t i = 0; i < n; ++i) {
      if (chunk[i] == '\n')
        lines.push_back(std::exchange(partial_, {}));
      else if (partial_.size() < max_line_bytes_)
        partial_.push_back(chunk[i]);
    }
  }
  return lines;
}

std::vector<std::string> file_follower::rest() {
  auto lines = new_lines();
  if (!partial_.empty())
    lines.push_back(std::exchange(partial_, {}));
  return lines;
}

} // namespace paratune
