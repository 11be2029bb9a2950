#pragma once

#include "adapters/profile/kineto_trace.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// The raw material of a kineto_trace: what one pass over the JSON found.
struct kineto_scan_result {
  kineto_trace header;  ///< schema, devices, distributedInfo, counts, warnings
  std::vector<gpu_activity> activities;  ///< kernels, memcpys, memsets, in file order
  std::vector<std::string> names;        ///< activity names, by name_id
  std::vector<kineto_step> steps;        ///< ProfilerStep windows, no breakdown yet
};

/// Scans Chrome-trace JSON in one streaming pass (simdjson On-Demand: no DOM
/// is built, which is what makes hundreds of MB/s possible). `capacity` is
/// how many bytes from `json.data()` may be read; when it leaves less than
/// simdjson's padding past the end the text is copied first.
kineto_scan_result scan_kineto_json(std::string_view json, std::size_t capacity,
                                    std::string_view source);

} // namespace paratune
