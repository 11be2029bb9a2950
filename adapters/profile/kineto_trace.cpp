// Turns one scan of a Kineto trace into the tuning view: per-step GPU time
// breakdown (HTA's temporal breakdown and comm/compute overlap), step-time
// statistics, and the kernels that take the most time.
#include "adapters/profile/kineto_trace.hpp"

#include "adapters/profile/gzip_file.hpp"
#include "adapters/profile/kineto_scan.hpp"
#include "core/input_error.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace paratune {

namespace {

// The device with the most GPU time: a rank's trace also lists idle peers.
std::optional<int> primary_device(const std::vector<gpu_activity>& acts) {
  std::map<int, double> time_per_device;
  for (const auto& a : acts)
    time_per_device[a.device] += a.end_us - a.start_us;
  std::optional<int> best;
  double best_time = -1;
  for (const auto& [device, t] : time_per_device)
    if (t > best_time) {
      best = device;
      best_time = t;
    }
  return best;
}

void count_activities(const kineto_scan_result& scan, kineto_trace& t) {
  for (const auto& a : scan.activities) {
    double d = a.end_us - a.start_us;
    switch (a.kind) {
      case gpu_activity_kind::communication:
        ++t.comm_kernel_count;
        t.comm_kernel_time_us += d;
        [[fallthrough]];
      case gpu_activity_kind::compute:
        ++t.kernel_count;
        t.kernel_time_us += d;
        break;
      case gpu_activity_kind::memcpy: ++t.memcpy_count; break;
      case gpu_activity_kind::memset: ++t.memset_count; break;
    }
  }
}

std::vector<kineto_kernel_stat> kernel_stats(const kineto_scan_result& scan, double kernel_time,
                                             std::size_t top_n) {
  std::vector<kineto_kernel_stat> by_name(scan.names.size());
  for (const auto& a : scan.activities) {
    if (a.kind != gpu_activity_kind::compute && a.kind != gpu_activity_kind::communication)
      continue;
    double d = a.end_us - a.start_us;
    auto& s = by_name[a.name_id];
    if (s.count == 0) {
      s.name = scan.names[a.name_id];
      s.kind = a.kind;
      s.min_us = d;
      s.max_us = d;
    }
    ++s.count;
    s.total_us += d;
    s.min_us = std::min(s.min_us, d);
    s.max_us = std::max(s.max_us, d);
  }
  std::erase_if(by_name, [](const auto& s) { return s.count == 0; });
  for (auto& s : by_name)
    s.share = kernel_time > 0 ? s.total_us / kernel_time : 0;
  std::stable_sort(by_name.begin(), by_name.end(),
                   [](const auto& a, const auto& b) { return a.total_us > b.total_us; });
  if (by_name.size() > top_n)
    by_name.resize(top_n);
  return by_name;
}

// Steps sorted by start; a step annotated twice (CPU and a copy) counts once.
std::vector<kineto_step> unique_steps(std::vector<kineto_step> steps) {
  std::stable_sort(steps.begin(), steps.end(),
                   [](const auto& a, const auto& b) { return a.start_us < b.start_us; });
  std::vector<kineto_step> out;
  for (auto& s : steps)
    if (std::none_of(out.begin(), out.end(), [&](const auto& o) { return o.name == s.name; }))
      out.push_back(std::move(s));
  return out;
}

void step_time_stats(kineto_trace& t) {
  if (t.steps.empty())
    return;
  double sum = 0;
  for (const auto& s : t.steps)
    sum += s.duration_us;
  double mean = sum / static_cast<double>(t.steps.size());
  double var = 0;
  for (const auto& s : t.steps)
    var += (s.duration_us - mean) * (s.duration_us - mean);
  var /= static_cast<double>(t.steps.size());
  t.step_time_avg_ms = mean / 1000.0;
  t.step_time_stddev_ms = std::sqrt(var) / 1000.0;
}

void break_down(kineto_scan_result& scan, kineto_trace& t) {
  t.primary_device = primary_device(scan.activities);
  std::vector<gpu_activity> mine;
  double longest = 0;
  for (const auto& a : scan.activities)
    if (t.primary_device && a.device == *t.primary_device) {
      mine.push_back(a);
      longest = std::max(longest, a.end_us - a.start_us);
    }
  std::sort(mine.begin(), mine.end(),
            [](const auto& a, const auto& b) { return a.start_us < b.start_us; });
  t.steps = unique_steps(std::move(scan.steps));
  for (auto& s : t.steps) {
    s.gpu = breakdown_window(mine, longest, s.start_us, s.start_us + s.duration_us);
    t.total += s.gpu;
  }
  if (t.steps.empty() && !mine.empty()) {
    // No ProfilerStep annotations: the primary GPU's active span is the window.
    double end = 0;
    for (const auto& a : mine)
      end = std::max(end, a.end_us);
    t.total = breakdown_window(mine, longest, mine.front().start_us, end);
    t.warnings.push_back("no ProfilerStep#N annotations; the whole GPU span is one window");
  }
}

} // namespace

namespace {

kineto_trace from_scan(kineto_scan_result scan, std::string_view source,
                       const kineto_options& options) {
  kineto_trace t = std::move(scan.header);
  t.source = std::string(source);
  count_activities(scan, t);
  t.top_kernels = kernel_stats(scan, t.kernel_time_us, options.top_n);
  break_down(scan, t);
  step_time_stats(t);
  if (scan.activities.empty())
    t.warnings.push_back("no GPU kernels, memcpys or memsets in the trace");
  return t;
}

} // namespace

kineto_trace parse_kineto_trace(std::string_view json, std::string_view source,
                                const kineto_options& options) {
  return from_scan(scan_kineto_json(json, json.size(), source), source, options);
}

kineto_trace read_kineto_trace(const std::filesystem::path& path, const kineto_options& options) {
  file_bytes f = read_maybe_gzip(path);
  // Spare capacity lets the scanner read in place instead of copying.
  f.data.reserve(f.data.size() + 64);
  std::string source = path.string();
  kineto_trace t = from_scan(scan_kineto_json(f.data, f.data.capacity(), source), source, options);
  if (f.truncated) {
    t.partial = true;
    t.warnings.push_back(path.string() + ": gzip stream is truncated");
  }
  return t;
}

} // namespace paratune
