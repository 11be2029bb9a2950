// Reads tensorflow.profiler.XSpace with libprotobuf, from the schema this
// repository declares (adapters/profile/proto/xplane.proto).
#include "adapters/profile/xspace_reader.hpp"

#include "adapters/profile/gzip_file.hpp"
#include "adapters/profile/proto/xplane.pb.h"
#include "core/input_error.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>

namespace paratune {

namespace {

namespace pb = tensorflow::profiler;

struct event_total {
  std::uint64_t count = 0;
  double ps = 0;
};

// An event's place on the plane's timeline, in picoseconds.
struct interval {
  double start_ps = 0;
  double duration_ps = 0;
};

std::string event_name(const pb::XEventMetadata& m) {
  return m.display_name().empty() ? m.name() : m.display_name();
}

std::vector<xspace_busy_period> busy_periods(std::vector<interval> timeline) {
  std::sort(timeline.begin(), timeline.end(),
            [](const interval& a, const interval& b) { return a.start_ps < b.start_ps; });
  std::vector<xspace_busy_period> out;
  for (const auto& e : timeline) {
    if (out.empty() || e.start_ps - out.back().end_ps >= xspace_step_gap_ps)
      out.push_back({e.start_ps, e.start_ps, 0});
    auto& p = out.back();
    p.end_ps = std::max(p.end_ps, e.start_ps + e.duration_ps);
    p.event_ps += e.duration_ps;
  }
  return out;
}

std::vector<xspace_event_total> top_events(
    const pb::XPlane& plane, const std::unordered_map<std::int64_t, event_total>& totals,
    std::size_t top_n) {
  std::map<std::string, xspace_event_total> by_name;  // ids may share a display name
  for (const auto& [id, t] : totals) {
    auto it = plane.event_metadata().find(id);
    std::string name = it != plane.event_metadata().end() ? event_name(it->second)
                                                          : "metadata#" + std::to_string(id);
    auto& e = by_name[name];
    e.name = name;
    e.count += t.count;
    e.total_ps += t.ps;
  }
  std::vector<xspace_event_total> out;
  for (auto& [_, e] : by_name)
    out.push_back(std::move(e));
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.total_ps > b.total_ps; });
  if (out.size() > top_n)
    out.resize(top_n);
  return out;
}

xspace_line_summary summarize_line(const pb::XLine& line,
                                   std::unordered_map<std::int64_t, event_total>& totals,
                                   std::vector<interval>* timeline) {
  xspace_line_summary s;
  s.name = line.name().empty() ? line.display_name() : line.name();
  s.event_count = static_cast<std::size_t>(line.events_size());
  const double line_start_ps = 1000.0 * static_cast<double>(line.timestamp_ns());
  for (const auto& e : line.events()) {
    auto& t = totals[e.metadata_id()];
    ++t.count;
    t.ps += static_cast<double>(e.duration_ps());
    if (timeline)
      timeline->push_back({line_start_ps + static_cast<double>(e.offset_ps()),
                           static_cast<double>(e.duration_ps())});
  }
  return s;
}

xspace_plane_summary summarize_plane(const pb::XPlane& plane, std::size_t top_n) {
  xspace_plane_summary p;
  p.id = plane.id();
  p.name = plane.name();
  p.event_metadata_count = static_cast<std::size_t>(plane.event_metadata_size());
  const bool device = p.name.starts_with("/device:");
  std::unordered_map<std::int64_t, event_total> totals;
  std::vector<interval> timeline;
  for (const auto& line : plane.lines()) {
    p.lines.push_back(summarize_line(line, totals, device ? &timeline : nullptr));
    p.event_count += p.lines.back().event_count;
  }
  p.top_events = top_events(plane, totals, top_n);
  p.busy_periods = busy_periods(std::move(timeline));
  return p;
}

} // namespace

void parse_xspace_message(std::string_view bytes, std::string_view where,
                          tensorflow::profiler::XSpace& space) {
  if (bytes.empty())
    throw input_error(std::string(where) + ": empty file, not an XSpace");
  // libprotobuf takes an int size and refuses messages of 2 GiB or more.
  if (bytes.size() >= static_cast<std::size_t>(INT_MAX))
    throw input_error(std::string(where) + ": " + std::to_string(bytes.size())
                      + " bytes, more than a protobuf message can hold");
  if (!space.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw input_error(std::string(where) + ": not a valid XSpace protobuf ("
                      + std::to_string(bytes.size())
                      + " bytes that libprotobuf does not parse as tensorflow.profiler.XSpace)");
  // Some byte strings parse as *some* protobuf by luck; a message without a
  // single named plane is not an XSpace we can use.
  const bool named = std::any_of(space.planes().begin(), space.planes().end(),
                                 [](const auto& p) { return !p.name().empty(); });
  if (!named)
    throw input_error(std::string(where) + ": no named XPlane found; not an XSpace");
}

xspace_summary summarize_xspace(const tensorflow::profiler::XSpace& space, std::size_t top_n) {
  xspace_summary s;
  for (const auto& plane : space.planes())
    s.planes.push_back(summarize_plane(plane, top_n));
  s.errors.assign(space.errors().begin(), space.errors().end());
  s.warnings.assign(space.warnings().begin(), space.warnings().end());
  s.hostnames.assign(space.hostnames().begin(), space.hostnames().end());
  return s;
}

xspace_summary parse_xspace(std::string_view bytes, std::string_view where, std::size_t top_n) {
  tensorflow::profiler::XSpace space;
  parse_xspace_message(bytes, where, space);
  return summarize_xspace(space, top_n);
}

void read_xspace_message(const std::filesystem::path& path, tensorflow::profiler::XSpace& space) {
  file_bytes f = read_maybe_gzip(path);
  if (f.truncated)
    throw input_error(path.string() + ": gzip stream is truncated");
  parse_xspace_message(f.data, path.string(), space);
}

xspace_summary read_xspace_file(const std::filesystem::path& path, std::size_t top_n) {
  tensorflow::profiler::XSpace space;
  read_xspace_message(path, space);
  return summarize_xspace(space, top_n);
}

double xspace_step_time_s(const xspace_plane_summary& plane) {
  const auto& periods = plane.busy_periods;
  if (periods.empty())
    return 0;
  if (periods.size() == 1)
    return (periods[0].end_ps - periods[0].start_ps) / 1e12;
  std::vector<double> intervals;
  for (std::size_t i = 1; i < periods.size(); ++i)
    intervals.push_back(periods[i].start_ps - periods[i - 1].start_ps);
  std::sort(intervals.begin(), intervals.end());
  const auto n = intervals.size();
  const double median = n % 2 ? intervals[n / 2] : (intervals[n / 2 - 1] + intervals[n / 2]) / 2;
  return median / 1e12;
}

} // namespace paratune
