#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

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

/// One XPlane: a device ("/device:TPU:0") or the host ("/host:CPU").
struct xspace_plane_summary {
  std::int64_t id = 0;
  std::string name;
  std::vector<xspace_line_summary> lines;
  std::size_t event_count = 0;
  std::size_t event_metadata_count = 0;
  /// Longest event kinds first (by total duration), at most `top_n`.
  std::vector<xspace_event_total> top_events;
};

/// What a raw XSpace (`*.xplane.pb`) holds, read without a protobuf library
/// by walking the wire format. Tool outputs (op_profile, ...) are computed
/// from it by the xprof converter, which this reader does not replace.
struct xspace_summary {
  std::vector<xspace_plane_summary> planes;
  std::vector<std::string> hostnames;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

/// Parses serialized XSpace bytes. Throws input_error naming `where` and the
/// byte offset when the bytes are not a well-formed XSpace.
xspace_summary parse_xspace(std::string_view bytes, std::string_view where,
                            std::size_t top_n = 10);

/// Reads and parses a `.xplane.pb` file (gzip allowed).
xspace_summary read_xspace_file(const std::filesystem::path& path, std::size_t top_n = 10);

/// What to tell a user who hands us an XSpace where tool JSON is expected.
std::string xspace_converter_hint();

} // namespace paratune
