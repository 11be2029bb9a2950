#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace paratune {

/// What a GPU was doing during an interval of its timeline.
enum class gpu_activity_kind : std::uint8_t { compute, communication, memcpy, memset };

std::string_view to_string(gpu_activity_kind kind);

/// True for NCCL kernel names: ^nccl(Dev|Sym|SymDev)?Kernel_ (NCCL < 2.19,
/// >= 2.19 and symmetric-memory kernels).
bool is_nccl_kernel_name(std::string_view name);

/// One activity on a GPU timeline, in microseconds.
struct gpu_activity {
  double start_us = 0;
  double end_us = 0;
  gpu_activity_kind kind = gpu_activity_kind::compute;
  int device = 0;
  std::uint32_t name_id = 0;  ///< index into the owner's name table
};

/// Where the time of a window went on one GPU. The union of intervals is
/// taken per category, so overlapping streams are not double counted.
/// compute + exposed_comm + exposed_memory + idle == window.
struct gpu_time_breakdown {
  double window_us = 0;
  double busy_us = 0;            ///< any activity
  double compute_us = 0;         ///< any compute kernel
  double comm_us = 0;            ///< any NCCL kernel
  double exposed_comm_us = 0;    ///< NCCL with no compute kernel running
  double memory_us = 0;          ///< any memcpy/memset
  double exposed_memory_us = 0;  ///< memcpy/memset with no kernel running
  double idle_us = 0;            ///< nothing running

  /// Communication hidden behind compute.
  double overlapped_comm_us() const { return comm_us - exposed_comm_us; }
  /// `part` as a fraction of the window (0 when the window is empty).
  double share(double part) const { return window_us > 0 ? part / window_us : 0; }
  gpu_time_breakdown& operator+=(const gpu_time_breakdown& o);
};

/// Breaks down `window` [begin_us, end_us) of one device. `activities` must
/// be sorted by start; `longest_us` is the longest activity's duration (to
/// bound the search for activities that began before the window).
gpu_time_breakdown breakdown_window(const std::vector<gpu_activity>& activities,
                                    double longest_us, double begin_us, double end_us);

} // namespace paratune
