// A minimal protobuf wire-format walker for tensorflow.profiler.XSpace
// (xprof/xla tsl/profiler/protobuf/xplane.proto). Only the fields needed for a
// summary are decoded; the rest is skipped by wire type.
#include "adapters/profile/xspace_reader.hpp"

#include "adapters/profile/gzip_file.hpp"
#include "core/input_error.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace paratune {

namespace {

enum wire_type : int { varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5 };

/// One decoded field: its number, wire type, and value (integer or bytes).
struct field {
  std::uint32_t number = 0;
  int type = 0;
  std::uint64_t integer = 0;
  std::string_view bytes;
};

class wire_reader {
 public:
  wire_reader(std::string_view data, std::size_t base, std::string_view where)
      : data_(data), base_(base), where_(where) {}

  bool done() const { return pos_ >= data_.size(); }

  field next() {
    field f;
    std::uint64_t key = read_varint();
    f.number = static_cast<std::uint32_t>(key >> 3);
    f.type = static_cast<int>(key & 7);
    if (f.number == 0)
      fail("field number 0");
    switch (f.type) {
      case varint: f.integer = read_varint(); break;
      case fixed64: f.bytes = take(8); break;
      case fixed32: f.bytes = take(4); break;
      case length_delimited: {
        std::uint64_t n = read_varint();
        if (n > data_.size() - pos_)
          fail("length " + std::to_string(n) + " runs past the end");
        f.bytes = take(static_cast<std::size_t>(n));
        break;
      }
      default: fail("unsupported wire type " + std::to_string(f.type));
    }
    return f;
  }

  /// Offset of the current position within the whole buffer (for errors).
  std::size_t offset() const { return base_ + pos_; }
  /// Offset of `sub` (a view into this reader's data) within the whole buffer.
  std::size_t offset_of(std::string_view sub) const {
    return base_ + static_cast<std::size_t>(sub.data() - data_.data());
  }

 private:
  std::uint64_t read_varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size())
        fail("truncated varint");
      auto b = static_cast<unsigned char>(data_[pos_++]);
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80u) == 0)
        return v;
    }
    fail("varint longer than 10 bytes");
  }

  std::string_view take(std::size_t n) {
    if (n > data_.size() - pos_)
      fail("field runs past the end");
    auto s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw input_error(std::string(where_) + ": not a valid XSpace protobuf (" + why
                      + " at byte " + std::to_string(base_ + pos_) + ")");
  }

  std::string_view data_;
  std::size_t pos_ = 0;
  std::size_t base_;
  std::string_view where_;
};

struct walker {
  std::string_view where;
  std::size_t top_n;

  wire_reader sub(const wire_reader& parent, std::string_view bytes) const {
    return wire_reader(bytes, parent.offset_of(bytes), where);
  }

  // XEventMetadata: 1 id, 2 name, 4 display_name.
  std::string metadata_name(wire_reader r) const {
    std::string name, display;
    while (!r.done()) {
      field f = r.next();
      if (f.type != length_delimited)
        continue;
      if (f.number == 2)
        name = f.bytes;
      else if (f.number == 4)
        display = f.bytes;
    }
    return display.empty() ? name : display;
  }

  // map<int64, XEventMetadata> entry: 1 key, 2 value.
  void metadata_entry(wire_reader r, std::unordered_map<std::int64_t, std::string>& names) const {
    std::int64_t key = 0;
    std::string name;
    while (!r.done()) {
      field f = r.next();
      if (f.number == 1 && f.type == varint)
        key = static_cast<std::int64_t>(f.integer);
      else if (f.number == 2 && f.type == length_delimited)
        name = metadata_name(sub(r, f.bytes));
    }
    names[key] = std::move(name);
  }

  struct event_total {
    std::uint64_t count = 0;
    double ps = 0;
  };

  // An event's place on the plane's timeline, in picoseconds.
  struct interval {
    double start_ps = 0;
    double duration_ps = 0;
  };

  // XEvent: 1 metadata_id, 2 offset_ps (from its line's timestamp), 3 duration_ps.
  interval event(wire_reader r, std::unordered_map<std::int64_t, event_total>& totals) const {
    std::int64_t id = 0;
    interval at;
    while (!r.done()) {
      field f = r.next();
      if (f.type != varint)
        continue;
      if (f.number == 1)
        id = static_cast<std::int64_t>(f.integer);
      else if (f.number == 2)
        at.start_ps = static_cast<double>(f.integer);
      else if (f.number == 3)
        at.duration_ps = static_cast<double>(f.integer);
    }
    auto& t = totals[id];
    ++t.count;
    t.ps += at.duration_ps;
    return at;
  }

  // XLine: 2 name, 3 timestamp_ns, 11 display_name, 4 events. The events'
  // intervals go to `timeline` when it is given (device planes).
  xspace_line_summary line(wire_reader r, std::unordered_map<std::int64_t, event_total>& totals,
                           std::vector<interval>* timeline) const {
    xspace_line_summary s;
    std::string display;
    double line_start_ps = 0;
    const std::size_t first = timeline ? timeline->size() : 0;
    while (!r.done()) {
      field f = r.next();
      if (f.number == 3 && f.type == varint)
        line_start_ps = 1000.0 * static_cast<double>(f.integer);
      if (f.type != length_delimited)
        continue;
      if (f.number == 2)
        s.name = f.bytes;
      else if (f.number == 11)
        display = f.bytes;
      else if (f.number == 4) {
        const interval at = event(sub(r, f.bytes), totals);
        if (timeline)
          timeline->push_back(at);
        ++s.event_count;
      }
    }
    if (timeline)  // the timestamp may follow the events on the wire
      for (auto i = first; i < timeline->size(); ++i)
        (*timeline)[i].start_ps += line_start_ps;
    if (s.name.empty())
      s.name = display;
    return s;
  }

  static std::vector<xspace_busy_period> busy_periods(std::vector<interval> timeline) {
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
      const std::unordered_map<std::int64_t, event_total>& totals,
      const std::unordered_map<std::int64_t, std::string>& names) const {
    std::map<std::string, xspace_event_total> by_name;  // ids may share a display name
    for (const auto& [id, t] : totals) {
      auto it = names.find(id);
      std::string name = it != names.end() ? it->second : "metadata#" + std::to_string(id);
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

  // XPlane: 1 id, 2 name, 3 lines, 4 event_metadata.
  xspace_plane_summary plane(wire_reader r) const {
    xspace_plane_summary p;
    std::unordered_map<std::int64_t, std::string> names;
    std::unordered_map<std::int64_t, event_total> totals;
    std::vector<interval> timeline;
    std::vector<std::string_view> lines;  // walked once the plane's name is known
    while (!r.done()) {
      field f = r.next();
      if (f.number == 1 && f.type == varint)
        p.id = static_cast<std::int64_t>(f.integer);
      else if (f.type != length_delimited)
        continue;
      else if (f.number == 2)
        p.name = f.bytes;
      else if (f.number == 3)
        lines.push_back(f.bytes);
      else if (f.number == 4) {
        metadata_entry(sub(r, f.bytes), names);
        ++p.event_metadata_count;
      }
    }
    const bool device = p.name.starts_with("/device:");
    for (const auto bytes : lines) {
      p.lines.push_back(line(sub(r, bytes), totals, device ? &timeline : nullptr));
      p.event_count += p.lines.back().event_count;
    }
    p.top_events = top_events(totals, names);
    p.busy_periods = busy_periods(std::move(timeline));
    return p;
  }
};

} // namespace

xspace_summary parse_xspace(std::string_view bytes, std::string_view where, std::size_t top_n) {
  if (bytes.empty())
    throw input_error(std::string(where) + ": empty file, not an XSpace");
  // XSpace: 1 planes, 2 errors, 3 warnings, 4 hostnames.
  walker w{where, top_n};
  wire_reader r(bytes, 0, where);
  xspace_summary s;
  while (!r.done()) {
    field f = r.next();
    if (f.type != length_delimited)
      continue;
    switch (f.number) {
      case 1: s.planes.push_back(w.plane(w.sub(r, f.bytes))); break;
      case 2: s.errors.emplace_back(f.bytes); break;
      case 3: s.warnings.emplace_back(f.bytes); break;
      case 4: s.hostnames.emplace_back(f.bytes); break;
      default: break;
    }
  }
  // Any byte string walks as *some* protobuf by luck only rarely; a file
  // without a single named plane is not an XSpace we can use.
  bool named = std::any_of(s.planes.begin(), s.planes.end(),
                           [](const auto& p) { return !p.name.empty(); });
  if (!named)
    throw input_error(std::string(where) + ": no named XPlane found; not an XSpace");
  return s;
}

xspace_summary read_xspace_file(const std::filesystem::path& path, std::size_t top_n) {
  file_bytes f = read_maybe_gzip(path);
  if (f.truncated)
    throw input_error(path.string() + ": gzip stream is truncated");
  return parse_xspace(f.data, path.string(), top_n);
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

std::string xspace_converter_hint() {
  return "raw XSpace (.xplane.pb) holds traces, not tool data; convert it with the xprof "
         "converter (pip install xprof; xprof --logdir=DIR, or "
         "xprof.convert.raw_to_tool_data.xspace_to_tool_data([path], TOOL, {})) and read the "
         "tool JSON";
}

} // namespace paratune
