#include "storage/rocks_log.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <filesystem>

namespace paratune {

rocks_log::rocks_log() {
  SetInfoLogLevel(rocksdb::InfoLogLevel::WARN_LEVEL);
}

void rocks_log::Logv(const char* format, va_list ap) {
  char buffer[1024];
  va_list copy;
  va_copy(copy, ap);
  std::vsnprintf(buffer, sizeof buffer, format, copy);
  va_end(copy);
  std::string line{buffer};
  while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
    line.pop_back();
  if (line.empty())
    return;
  std::lock_guard<std::mutex> guard{mutex_};
  lines_.push_back(std::move(line));
  if (lines_.size() > kept_lines)
    lines_.pop_front();
}

std::vector<std::string> rocks_log::lines() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return {lines_.begin(), lines_.end()};
}

std::optional<dropped_log_bytes> parse_dropped_log_bytes(const std::string& line) {
  // "[WARN] [db/db_impl/db_impl_open.cc:982] (ignoring error) DIR/000004.log:
  //  dropping 29647 bytes; Corruption: checksum mismatch"
  constexpr std::string_view marker = ": dropping ";
  const auto at = line.find(marker);
  if (at == std::string::npos)
    return std::nullopt;
  const auto path_start = line.rfind(' ', at);
  const auto path = line.substr(path_start == std::string::npos ? 0 : path_start + 1,
                                at - (path_start == std::string::npos ? 0 : path_start + 1));
  const auto count_start = at + marker.size();
  const auto count_end = line.find(' ', count_start);
  if (count_end == std::string::npos || line.compare(count_end, 7, " bytes;") != 0)
    return std::nullopt;
  dropped_log_bytes out;
  out.file = std::filesystem::path{path}.filename().string();
  try {
    out.bytes = std::stoull(line.substr(count_start, count_end - count_start));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  out.reason = line.substr(count_end + 7);
  while (!out.reason.empty() && out.reason.front() == ' ')
    out.reason.erase(out.reason.begin());
  return out;
}

std::vector<dropped_log_bytes> dropped_log_bytes_of(const std::vector<std::string>& lines) {
  std::vector<dropped_log_bytes> out;
  for (const auto& line : lines) {
    auto dropped = parse_dropped_log_bytes(line);
    if (!dropped)
      continue;
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const auto& d) { return d.file == dropped->file; });
    if (same == out.end()) {
      out.push_back(std::move(*dropped));
      continue;
    }
    same->bytes += dropped->bytes;
    if (same->reason.find(dropped->reason) == std::string::npos)
      same->reason += "; " + dropped->reason;
  }
  return out;
}

} // namespace paratune
