#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tensorflow::profiler {
class XSpace;  // adapters/profile/proto/xplane.pb.h, generated from xplane.proto
}

namespace paratune {

/// One timeline line of an XPlane ("XLA Ops", "XLA Modules", a host thread).
struct xspace_line_summary {
  std::string name;
  std::size_t event_count = 0;
};

/// Total duration of all events sharing one metadata display name.
struct xspace_event_total {
  std::string name;
  std::uint64_t count = 0;
  double total_ps = 0;
};

/// A stretch of a device's timeline with no idle gap of at least
/// xspace_step_gap_ps inside: from its first event's start to its last
/// event's end, across all of the plane's lines.
struct xspace_busy_period {
  double start_ps = 0;
  double end_ps = 0;
  double event_ps = 0;  ///< the events' durations summed (streams that overlap count twice)
};

/// The idle gap that separates two steps on a device. A training loop that
/// waits for each step's result (loss.block_until_ready(), .item()) leaves
/// the device idle while the host dispatches the next step: 5.7 ms in
/// paratune's own JAX run on an H100, against no gap of even 1 ms inside a
/// step.
inline constexpr double xspace_step_gap_ps = 2e9;

/// One XPlane: a device ("/device:TPU:0") or the host ("/host:CPU").
struct xspace_plane_summary {
  std::int64_t id = 0;
  std::string name;
  std::vector<xspace_line_summary> lines;
  std::size_t event_count = 0;
  std::size_t event_metadata_count = 0;
  /// Longest event kinds first (by total duration), at most `top_n`.
  std::vector<xspace_event_total> top_events;
  /// Device planes only ("/device:..."): the busy periods, in time order.
  std::vector<xspace_busy_period> busy_periods;
};

/// The step time a device plane shows, in seconds: the median interval
/// between the starts of consecutive busy periods (a step's wall clock,
/// the host's dispatch gap included), or the span of the only one. 0 when
/// the plane has no busy period.
double xspace_step_time_s(const xspace_plane_summary& plane);

/// What a raw XSpace (`*.xplane.pb`) holds, in outline: its planes, their
/// lines and longest event kinds. xspace_profile.hpp derives the diagnosis's
/// numbers from the same message.
struct xspace_summary {
  std::vector<xspace_plane_summary> planes;
  std::vector<std::string> hostnames;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

/// Parses serialized XSpace bytes with libprotobuf into `space`. Throws
/// input_error naming `where` when the bytes are not an XSpace with at
/// least one named plane.
void parse_xspace_message(std::string_view bytes, std::string_view where,
                          tensorflow::profiler::XSpace& space);

/// Reads a `.xplane.pb` file (gzip allowed) into `space`; throws as above.
void read_xspace_message(const std::filesystem::path& path, tensorflow::profiler::XSpace& space);

/// The outline of a parsed XSpace, at most `top_n` event kinds per plane.
xspace_summary summarize_xspace(const tensorflow::profiler::XSpace& space, std::size_t top_n);

/// parse_xspace_message() then summarize_xspace().
xspace_summary parse_xspace(std::string_view bytes, std::string_view where,
                            std::size_t top_n = 10);

/// Reads and summarizes a `.xplane.pb` file (gzip allowed).
xspace_summary read_xspace_file(const std::filesystem::path& path, std::size_t top_n = 10);

} // namespace paratune
