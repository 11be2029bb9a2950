#pragma once

#include <optional>
#include <string_view>

namespace paratune {

/// One sample of a GPU monitor running beside the job (nvidia-smi style):
///   "... utilization.gpu [%]: 73.4, memory.used [MiB]: 44402"
struct gpu_sample {
  double utilization_pct = 0;
  double memory_used_mib = 0;
};

/// Reads a monitor line; nullopt for any other line.
std::optional<gpu_sample> parse_gpu_monitor_line(std::string_view line);

} // namespace paratune
