#pragma once

#include "adapters/profile/gpu_timeline.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// One entry of a Kineto trace's `deviceProperties`.
struct kineto_device_properties {
  int id = 0;
  std::string name;
  std::uint64_t total_global_mem = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int num_sms = 0;
};

/// The trace's `distributedInfo` (absent fields stay empty).
struct kineto_distributed_info {
  std::string backend;
  std::optional<int> rank;
  std::optional<int> world_size;
  std::string nccl_version;
};

/// One `ProfilerStep#N` window (CPU-side annotation) and what the primary
/// GPU did during it.
struct kineto_step {
  std::string name;
  std::optional<std::int64_t> number;
  double start_us = 0;
  double duration_us = 0;
  gpu_time_breakdown gpu;
};

/// All occurrences of one kernel name.
struct kineto_kernel_stat {
  std::string name;
  gpu_activity_kind kind = gpu_activity_kind::compute;
  std::uint64_t count = 0;
  double total_us = 0;
  double min_us = 0;
  double max_us = 0;
  /// Fraction of all kernel time in the trace.
  double share = 0;
};

/// A PyTorch-profiler (Kineto) Chrome trace, reduced to what tuning needs.
struct kineto_trace {
  std::string source;
  std::optional<int> schema_version;
  std::vector<kineto_device_properties> devices;
  kineto_distributed_info distributed;

  std::size_t event_count = 0;        ///< entries of traceEvents read
  std::size_t kernel_count = 0;       ///< all devices
  std::size_t comm_kernel_count = 0;  ///< NCCL kernels
  std::size_t memcpy_count = 0;
  std::size_t memset_count = 0;
  double kernel_time_us = 0;          ///< sum of kernel durations
  double comm_kernel_time_us = 0;     ///< sum of NCCL kernel durations

  /// The device whose timeline is broken down (most GPU time).
  std::optional<int> primary_device;
  std::vector<kineto_step> steps;
  /// Summed over steps; over the primary device's whole active span when
  /// the trace has no ProfilerStep annotations.
  gpu_time_breakdown total;
  std::optional<double> step_time_avg_ms;
  std::optional<double> step_time_stddev_ms;  ///< population standard deviation

  /// Longest first.
  std::vector<kineto_kernel_stat> top_kernels;

  /// True when the trace was cut short or damaged and only a prefix was read.
  bool partial = false;
  std::vector<std::string> warnings;

  /// Share of the analysed windows the primary GPU was busy.
  double gpu_busy_share() const { return total.share(total.busy_us); }
  /// NCCL kernels' share of all kernel time.
  double comm_kernel_share() const {
    return kernel_time_us > 0 ? comm_kernel_time_us / kernel_time_us : 0;
  }
};

struct kineto_options {
  std::size_t top_n = 20;
};

/// Parses Chrome-trace JSON text (already decompressed). `source` names it
/// in messages. Throws input_error when nothing usable can be read; a trace
/// damaged part-way comes back with `partial` set.
kineto_trace parse_kineto_trace(std::string_view json, std::string_view source,
                                const kineto_options& options = {});

/// Reads a trace file, plain or gzip (detected by content).
kineto_trace read_kineto_trace(const std::filesystem::path& path,
                               const kineto_options& options = {});

} // namespace paratune
