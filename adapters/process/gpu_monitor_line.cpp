#include "adapters/process/gpu_monitor_line.hpp"

#include <charconv>

namespace paratune {

namespace {

std::optional<double> number_after(std::string_view line, std::string_view key) {
  auto pos = line.find(key);
  if (pos == std::string_view::npos)
    return std::nullopt;
  pos += key.size();
  while (pos < line.size() && line[pos] == ' ')
    ++pos;
  double v = 0;
  auto [end, ec] = std::from_chars(line.data() + pos, line.data() + line.size(), v);
  if (ec != std::errc{})
    return std::nullopt;
  return v;
}

} // namespace

std::optional<gpu_sample> parse_gpu_monitor_line(std::string_view line) {
  auto util = number_after(line, "utilization.gpu [%]:");
  auto mem = number_after(line, "memory.used [MiB]:");
  if (!util || !mem)
    return std::nullopt;
  return gpu_sample{*util, *mem};
}

} // namespace paratune
