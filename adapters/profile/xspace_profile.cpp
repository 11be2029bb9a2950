// The diagnosis's numbers from a raw XSpace (see xspace_profile.hpp): what
// xprof's op_profile, overview_page and roofline_model tools would compute
// from the same events, reduced to what paratune reads.
#include "adapters/profile/xspace_profile.hpp"

#include "adapters/profile/proto/xplane.pb.h"
#include "adapters/profile/xprof_tools.hpp"
#include "adapters/profile/xspace_reader.hpp"
#include "core/input_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace paratune {

namespace {

namespace pb = tensorflow::profiler;
using stat_list = google::protobuf::RepeatedPtrField<pb::XStat>;

constexpr double ps_per_ms = 1e9;
constexpr double bytes_per_gib = 1024.0 * 1024.0 * 1024.0;

// An XStat's name lives in its plane's stat_metadata.
std::string_view stat_name(const pb::XPlane& plane, const pb::XStat& s) {
  auto it = plane.stat_metadata().find(s.metadata_id());
  return it == plane.stat_metadata().end() ? std::string_view{} : it->second.name();
}

const pb::XStat* find_stat(const pb::XPlane& plane, const stat_list& stats, std::string_view name) {
  for (const auto& s : stats)
    if (stat_name(plane, s) == name)
      return &s;
  return nullptr;
}

std::optional<double> number_stat(const pb::XPlane& plane, const stat_list& stats,
                                  std::string_view name) {
  const pb::XStat* s = find_stat(plane, stats, name);
  if (!s)
    return std::nullopt;
  switch (s->value_case()) {
    case pb::XStat::kDoubleValue: return s->double_value();
    case pb::XStat::kUint64Value: return static_cast<double>(s->uint64_value());
    case pb::XStat::kInt64Value: return static_cast<double>(s->int64_value());
    default: return std::nullopt;
  }
}

// A string stat, or one stored by reference to a stat metadata's name.
std::string text_stat(const pb::XPlane& plane, const stat_list& stats, std::string_view name) {
  const pb::XStat* s = find_stat(plane, stats, name);
  if (!s)
    return {};
  if (s->value_case() == pb::XStat::kStrValue)
    return s->str_value();
  if (s->value_case() == pb::XStat::kRefValue) {
    auto it = plane.stat_metadata().find(static_cast<std::int64_t>(s->ref_value()));
    return it == plane.stat_metadata().end() ? std::string{} : it->second.name();
  }
  return {};
}

const pb::XLine* find_line(const pb::XPlane& plane, std::string_view name) {
  for (const auto& l : plane.lines())
    if (l.name() == name || (l.name().empty() && l.display_name() == name))
      return &l;
  return nullptr;
}

// "/device:TPU:0" -> "TPU"; empty for a host plane.
std::string device_kind(const std::string& plane_name) {
  constexpr std::string_view prefix = "/device:";
  if (!plane_name.starts_with(prefix))
    return {};
  const auto end = plane_name.find(':', prefix.size());
  return plane_name.substr(prefix.size(), end - prefix.size());
}

// The plane the diagnosis reads: TPU first, then GPU, with an op timeline.
const pb::XPlane* pick_device_plane(const pb::XSpace& space) {
  for (const char* kind : {"TPU", "GPU"})
    for (const auto& p : space.planes())
      if (device_kind(p.name()) == kind && find_line(p, "XLA Ops"))
        return &p;
  return nullptr;
}

// One event on a line, on the plane's clock, in picoseconds.
struct timed_event {
  std::int64_t metadata_id = 0;
  double start_ps = 0;
  double duration_ps = 0;
  double end_ps() const { return start_ps + duration_ps; }
};

// Aggregated events (num_occurrences instead of offset_ps) have no place in
// time, so they are left out of every timeline.
std::vector<timed_event> line_events(const pb::XLine* line) {
  std::vector<timed_event> out;
  if (!line)
    return out;
  const double base_ps = 1000.0 * static_cast<double>(line->timestamp_ns());
  for (const auto& e : line->events())
    if (e.data_case() != pb::XEvent::kNumOccurrences)
      out.push_back({e.metadata_id(), base_ps + static_cast<double>(e.offset_ps()),
                     static_cast<double>(e.duration_ps())});
  std::sort(out.begin(), out.end(), [](const timed_event& a, const timed_event& b) {
    return a.start_ps != b.start_ps ? a.start_ps < b.start_ps : a.duration_ps > b.duration_ps;
  });
  return out;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string event_display_name(const pb::XPlane& plane, std::int64_t id) {
  auto it = plane.event_metadata().find(id);
  if (it == plane.event_metadata().end())
    return "metadata#" + std::to_string(id);
  return it->second.display_name().empty() ? it->second.name() : it->second.display_name();
}

// Start-to-start spacing of the program that ran longest in all: a training
// loop runs its step program once per step.
std::optional<double> module_step_ps(const pb::XPlane& plane,
                                     const std::vector<timed_event>& modules) {
  std::map<std::string, std::vector<const timed_event*>> runs;
  std::map<std::string, double> total_ps;
  for (const auto& m : modules) {
    const auto name = event_display_name(plane, m.metadata_id);
    runs[name].push_back(&m);
    total_ps[name] += m.duration_ps;
  }
  if (runs.empty())
    return std::nullopt;
  const auto longest =
      std::max_element(total_ps.begin(), total_ps.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto& r = runs[longest->first];
  if (r.size() == 1)
    return r.front()->duration_ps;
  std::vector<double> gaps;
  for (std::size_t i = 1; i < r.size(); ++i)
    gaps.push_back(r[i]->start_ps - r[i - 1]->start_ps);
  return median(gaps);
}

std::optional<double> step_time_ps(const pb::XPlane& plane, const std::vector<timed_event>& steps,
                                   const std::vector<timed_event>& modules) {
  if (!steps.empty()) {
    std::vector<double> d;
    for (const auto& s : steps)
      d.push_back(s.duration_ps);
    return median(d);
  }
  return module_step_ps(plane, modules);
}

// Self time of each event: its duration less its direct children's (events
// on one line do not overlap, but they nest).
std::vector<double> self_times(const std::vector<timed_event>& ops) {
  std::vector<double> self(ops.size());
  std::vector<std::size_t> open;  // the nesting chain at the current event
  for (std::size_t i = 0; i < ops.size(); ++i) {
    while (!open.empty() && ops[i].start_ps >= ops[open.back()].end_ps())
      open.pop_back();
    self[i] = ops[i].duration_ps;
    if (!open.empty())
      self[open.back()] -= std::min(ops[i].duration_ps, self[open.back()]);
    open.push_back(i);
  }
  return self;
}

// The time at least one op runs: the union of the (sorted) op intervals.
double busy_ps(const std::vector<timed_event>& ops) {
  double busy = 0, reach = -std::numeric_limits<double>::infinity();
  for (const auto& e : ops) {
    if (e.end_ps() <= reach)
      continue;
    busy += e.end_ps() - std::max(e.start_ps, reach);
    reach = e.end_ps();
  }
  return busy;
}

struct window {
  double start_ps = std::numeric_limits<double>::infinity();
  double end_ps = -std::numeric_limits<double>::infinity();
  void cover(const std::vector<timed_event>& events) {
    for (const auto& e : events) {
      start_ps = std::min(start_ps, e.start_ps);
      end_ps = std::max(end_ps, e.end_ps());
    }
  }
  double span_ps() const { return end_ps > start_ps ? end_ps - start_ps : 0; }
};

// What every event of one metadata id shares.
struct op_facts {
  std::string name;
  std::string category;
  double flops = 0;  ///< per occurrence
  double bytes = 0;  ///< per occurrence
  bool host_memory = false;  ///< an operand or the result lives in host memory
};

// XLA prints a layout's memory space as "S(n)" ("{3,2,1,0:T(8,128)S(5)}"),
// and memory space 5 is host memory: xla::Layout::kHostMemorySpace = 5
// (xla/layout.h, "static constexpr int64_t kHostMemorySpace = 5;", line 434
// of tensorflow/tensorflow@21a87b1b3708af5491982dd86f4f4b0cc7d57184's
// third_party/xla copy). An XLA op event's metadata carries the op's HLO
// text as its name ("%copy-done.2 = f32[...]{...} copy-done((...S(5)...)
// %copy-start.2)", operands included) and its result shape as the
// "shape_with_layout" stat; either naming S(5) means the op moves data to or
// from host memory, over the host link rather than through HBM.
bool names_host_memory(std::string_view hlo_text) {
  return hlo_text.find("S(5)") != std::string_view::npos;
}

op_facts facts_of(const pb::XPlane& plane, std::int64_t id) {
  op_facts f;
  f.name = event_display_name(plane, id);
  auto it = plane.event_metadata().find(id);
  if (it == plane.event_metadata().end())
    return f;
  const auto& stats = it->second.stats();
  f.category = text_stat(plane, stats, "hlo_category");
  f.flops = number_stat(plane, stats, "flops").value_or(0);
  f.bytes = number_stat(plane, stats, "bytes_accessed").value_or(0);
  f.host_memory = names_host_memory(it->second.name())
                  || names_host_memory(text_stat(plane, stats, "shape_with_layout"));
  return f;
}

// An op's events summed: the op_profile row of one op.
struct op_total {
  op_facts facts;
  std::uint64_t occurrences = 0;
  double self_ps = 0;
  double flops = 0;
  double bytes = 0;
};

std::vector<op_total> op_totals(const pb::XPlane& plane, const std::vector<timed_event>& ops) {
  const auto self = self_times(ops);
  std::unordered_map<std::int64_t, op_facts> facts;
  std::map<std::string, op_total> by_name;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    auto f = facts.find(ops[i].metadata_id);
    if (f == facts.end())
      f = facts.emplace(ops[i].metadata_id, facts_of(plane, ops[i].metadata_id)).first;
    auto& t = by_name[f->second.name];
    if (t.occurrences == 0)
      t.facts = f->second;
    t.facts.host_memory = t.facts.host_memory || f->second.host_memory;
    ++t.occurrences;
    t.self_ps += self[i];
    t.flops += f->second.flops;
    t.bytes += f->second.bytes;
  }
  std::vector<op_total> out;
  for (auto& [_, t] : by_name)
    if (t.self_ps > 0)
      out.push_back(std::move(t));
  return out;
}

// The device's roofline, from the plane's own stats.
struct device_peaks {
  double flops_per_s = 0;
  double bytes_per_s = 0;
};

device_peaks peaks_of(const pb::XPlane& plane) {
  return {number_stat(plane, plane.stats(), "peak_teraflops_per_second").value_or(0) * 1e12,
          number_stat(plane, plane.stats(), "peak_hbm_bw_gigabytes_per_second").value_or(0) * 1e9};
}

// xprof's bound_by words, plus "Host" for an op that reads or writes host
// memory: its bytes cross the host link (PCIe / host DMA), whose bandwidth
// the plane does not state, so no roofline applies to it.
std::string bound_by(const op_total& t, const device_peaks& peaks) {
  if (t.facts.host_memory)
    return "Host";
  if (t.flops <= 0 && t.bytes <= 0)
    return "Unknown";
  if (t.bytes <= 0 || peaks.bytes_per_s <= 0)
    return "Compute";
  const double ridge = peaks.flops_per_s / peaks.bytes_per_s;  // FLOP per byte
  return t.flops / t.bytes >= ridge ? "Compute" : "HBM";
}

xprof_op to_xprof_op(const op_total& t, double window_ps, const device_peaks& peaks) {
  xprof_op op;
  op.name = t.facts.name;
  op.category = t.facts.category;
  op.raw_time_ps = t.self_ps;
  op.time_share = t.self_ps / window_ps;
  op.occurrences = t.occurrences;
  op.source = "xplane";
  const double seconds = t.self_ps / 1e12;
  op.flop_rate_gflops = t.flops / seconds / 1e9;
  if (peaks.flops_per_s > 0)
    op.flops_utilization = t.flops / seconds / peaks.flops_per_s;
  op.bound_by = bound_by(t, peaks);
  // A copy to or from host memory moves its bytes over the host link: they
  // say nothing of the HBM's bandwidth, and the XSpace holds no peak for the
  // link to set them against.
  if (!t.facts.host_memory) {
    op.hbm_bw_gibps = t.bytes / seconds / bytes_per_gib;
    if (peaks.bytes_per_s > 0)
      op.hbm_bw_utilization = t.bytes / seconds / peaks.bytes_per_s;
  }
  if (op.bound_by == "Compute")
    op.roofline_efficiency = op.flops_utilization;
  else if (op.bound_by == "HBM")
    op.roofline_efficiency = op.hbm_bw_utilization;
  return op;
}

std::vector<xprof_category_time> category_times(const std::vector<op_total>& ops,
                                                double window_ps) {
  std::map<std::string, double> ps;
  for (const auto& t : ops)
    ps[t.facts.category.empty() ? "unknown" : t.facts.category] += t.self_ps;
  std::vector<xprof_category_time> out;
  for (const auto& [category, time] : ps)
    out.push_back({category, time / window_ps, time});
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.raw_time_ps > b.raw_time_ps; });
  return out;
}

// "TPU v6 Lite" when the plane says so, else its kind from the plane name
// ("GPU"): readers tell TPU from GPU by this prefix.
std::string device_type(const pb::XPlane& plane) {
  const std::string kind = device_kind(plane.name());
  const std::string named = text_stat(plane, plane.stats(), "device_type_string");
  return named.starts_with(kind) ? named : kind;
}

void fill_kpis(xprof_profile& p, const std::vector<op_total>& ops, double window_ps,
               double busy, std::optional<double> step_ps, const device_peaks& peaks) {
  auto& k = p.kpis;
  k.device_duty_cycle_percent = 100 * busy / window_ps;
  k.device_idle_percent = 100 - *k.device_duty_cycle_percent;
  double flops = 0, bytes = 0, collective_ps = 0;
  for (const auto& t : ops) {
    flops += t.flops;
    if (!t.facts.host_memory)  // over the host link, as in to_xprof_op
      bytes += t.bytes;
    if (is_xprof_collective(t.facts.name) || is_xprof_collective(t.facts.category))
      collective_ps += t.self_ps;
  }
  k.collectives_time_percent = 100 * collective_ps / window_ps;
  const double seconds = window_ps / 1e12;
  if (peaks.flops_per_s > 0)
    k.flops_utilization_percent = 100 * flops / seconds / peaks.flops_per_s;
  if (peaks.bytes_per_s > 0)
    k.hbm_bw_utilization_percent = 100 * bytes / seconds / peaks.bytes_per_s;
  if (step_ps && *step_ps > 0) {
    k.step_time_avg_ms = *step_ps / ps_per_ms;
    k.compute_time_avg_ms = *k.step_time_avg_ms * *k.device_duty_cycle_percent / 100;
    k.idle_time_avg_ms = *k.step_time_avg_ms - *k.compute_time_avg_ms;
  }
}

void fill_peaks(xprof_profile& p, const device_peaks& peaks) {
  if (peaks.flops_per_s > 0)
    p.peaks.peak_flop_rate_gflops = peaks.flops_per_s / 1e9;
  if (peaks.bytes_per_s > 0)
    p.peaks.peak_hbm_bw_gibps = peaks.bytes_per_s / bytes_per_gib;
  if (peaks.flops_per_s > 0 && peaks.bytes_per_s > 0)
    p.peaks.hbm_ridge_point = peaks.flops_per_s / peaks.bytes_per_s;
  p.peaks.device_type = p.kpis.device_type;
}

int device_planes_of_kind(const pb::XSpace& space, const std::string& kind) {
  return static_cast<int>(
      std::count_if(space.planes().begin(), space.planes().end(),
                    [&](const auto& p) { return device_kind(p.name()) == kind; }));
}

} // namespace

xprof_profile profile_from_xspace(const pb::XSpace& space, std::string_view where,
                                  std::size_t top_n) {
  const pb::XPlane* plane = pick_device_plane(space);
  if (!plane)
    throw input_error(std::string(where) + ": no TPU or GPU plane with an \"XLA Ops\" line");
  const auto ops = line_events(find_line(*plane, "XLA Ops"));
  const auto modules = line_events(find_line(*plane, "XLA Modules"));
  const auto steps = line_events(find_line(*plane, "Steps"));
  window w;
  for (const auto* events : {&ops, &modules, &steps})
    w.cover(*events);
  if (ops.empty() || w.span_ps() <= 0)
    throw input_error(std::string(where) + ": " + plane->name() + " has no timed XLA op");
  xprof_profile p;
  p.tools.push_back("xplane");
  for (const auto& pl : space.planes())
    p.xspace_planes.push_back(pl.name());
  p.kpis.device_type = device_type(*plane);
  p.kpis.device_core_count = device_planes_of_kind(space, device_kind(plane->name()));
  if (space.hostnames_size() > 0)
    p.kpis.host_count = space.hostnames_size();
  const device_peaks peaks = peaks_of(*plane);
  fill_peaks(p, peaks);
  const auto totals = op_totals(*plane, ops);
  fill_kpis(p, totals, w.span_ps(), busy_ps(ops), step_time_ps(*plane, steps, modules), peaks);
  for (const auto& t : totals)
    p.top_ops.push_back(to_xprof_op(t, w.span_ps(), peaks));
  keep_top_ops(p.top_ops, top_n);
  p.categories = category_times(totals, w.span_ps());
  for (const auto& s : steps)
    p.steps.push_back({event_display_name(*plane, s.metadata_id), std::nullopt, std::nullopt,
                       std::nullopt, s.duration_ps / ps_per_ms});
  p.warnings.push_back(std::string(where) + ": read " + plane->name()
                       + " of the raw XSpace (no xprof tool output present)");
  for (const auto& e : space.errors())
    p.warnings.push_back(std::string(where) + ": the profiler reported: " + e);
  p.partial = !space.errors().empty();
  return p;
}

xprof_profile read_xspace_profile(const std::vector<std::filesystem::path>& files,
                                  std::size_t top_n) {
  if (files.empty())
    throw input_error("no .xplane.pb given");
  pb::XSpace space;
  read_xspace_message(files.front(), space);
  xprof_profile p = profile_from_xspace(space, files.front().string(), top_n);
  for (std::size_t i = 1; i < files.size(); ++i)
    p.warnings.push_back(files[i].string() + ": not read (one host's profile is read; "
                         + "every host of an SPMD job runs the same program)");
  return p;
}

} // namespace paratune
