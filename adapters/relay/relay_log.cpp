#include "adapters/relay/relay_log.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

namespace paratune {

std::optional<std::string> relay_log_writer::open(relay_log_writer& w, const std::string& path) {
  w.file_ = std::fopen(path.c_str(), "wb");
  if (!w.file_)
    return path + ": " + std::strerror(errno);
  return std::nullopt;
}

relay_log_writer::~relay_log_writer() {
  if (file_)
    std::fclose(file_);
}

bool relay_log_writer::append(const std::string& line) {
  if (!file_)
    return false;
  const bool written = std::fwrite(line.data(), 1, line.size(), file_) == line.size()
                       && std::fputc('\n', file_) != EOF;
  return std::fflush(file_) == 0 && written;
}

std::optional<std::vector<std::pair<uint64_t, std::string>>> read_relay_log(
    const std::string& path, uint64_t first, uint64_t last, size_t max_lines,
    size_t max_line_bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f)
    return std::nullopt;
  std::vector<std::pair<uint64_t, std::string>> out;
  std::array<char, 64 * 1024> chunk;
  uint64_t seq = 1;
  std::string line;  // the current line, when it is one we want
  for (size_t n; out.size() < max_lines && seq <= last
                 && (n = std::fread(chunk.data(), 1, chunk.size(), f.get())) > 0;) {
    for (size_t i = 0; i < n && out.size() < max_lines && seq <= last; ++i) {
      if (chunk[i] == '\n') {
        if (seq >= first)
          out.emplace_back(seq, std::move(line));
        line.clear();
        ++seq;
      } else if (seq >= first && line.size() < max_line_bytes) {
        line.push_back(chunk[i]);
      }
    }
  }
  return out;
}

} // namespace paratune
