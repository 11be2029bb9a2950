#pragma once

#include "adapters/profile/xprof_profile.hpp"

#include <cstddef>
#include <filesystem>
#include <string_view>
#include <vector>

namespace tensorflow::profiler {
class XSpace;
}

namespace paratune {

/// What the diagnosis reads, derived from a raw XSpace without xprof, from
/// one device plane (the first "/device:TPU:N", else "/device:GPU:N", that
/// has an "XLA Ops" line; SPMD chips run the same program):
/// - the profiled window: the span of its "Steps", "XLA Modules" and
///   "XLA Ops" events;
/// - step time: the median "Steps" event; without that line, the median
///   start-to-start interval of the longest-running "XLA Modules" program
///   (one run of a training step's program is one step, the host's dispatch
///   gap included), or its duration when it ran once;
/// - per op (grouped by display name): self time on "XLA Ops", nested
///   events' time taken out of their parent, as a share of the window;
///   FLOPs and bytes accessed from its metadata's `flops` and
///   `bytes_accessed` stats, turned into utilisations of the plane's
///   `peak_teraflops_per_second` and `peak_hbm_bw_gigabytes_per_second`,
///   and bound by Compute when its arithmetic intensity reaches the ridge
///   point, else by HBM (Unknown with neither);
/// - by category (`hlo_category`): self time summed;
/// - collectives: the ops whose name or category is a collective's;
/// - idle: the window less the union of the "XLA Ops" events.
/// `top_n` ops are kept, longest first. Throws input_error naming `where`
/// when the XSpace has no device plane with events.
xprof_profile profile_from_xspace(const tensorflow::profiler::XSpace& space,
                                  std::string_view where, std::size_t top_n);

/// Reads the first of `files` (sorted: one per host, and every host of an
/// SPMD job runs the same program) and derives its profile; the others are
/// named in a warning. Throws input_error when it does not read.
xprof_profile read_xspace_profile(const std::vector<std::filesystem::path>& files,
                                  std::size_t top_n);

} // namespace paratune
