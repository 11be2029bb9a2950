#include "adapters/profile/gpu_timeline.hpp"

#include <algorithm>

namespace paratune {

namespace {

constexpr int kind_count = 4;

// A boundary of a clipped interval for the sweep: +1 at its start, -1 at its end.
struct edge {
  double t;
  int delta;
  gpu_activity_kind kind;
};

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

} // namespace

std::string_view to_string(gpu_activity_kind kind) {
  switch (kind) {
    case gpu_activity_kind::compute: return "compute";
    case gpu_activity_kind::communication: return "communication";
    case gpu_activity_kind::memcpy: return "memcpy";
    case gpu_activity_kind::memset: return "memset";
  }
  return "unknown";
}

bool is_nccl_kernel_name(std::string_view name) {
  if (!starts_with(name, "nccl"))
    return false;
  name.remove_prefix(4);
  for (std::string_view infix : {"", "Dev", "Sym", "SymDev"})
    if (starts_with(name, infix) && starts_with(name.substr(infix.size()), "Kernel_"))
      return true;
  return false;
}

gpu_time_breakdown& gpu_time_breakdown::operator+=(const gpu_time_breakdown& o) {
  window_us += o.window_us;
  busy_us += o.busy_us;
  compute_us += o.compute_us;
  comm_us += o.comm_us;
  exposed_comm_us += o.exposed_comm_us;
  memory_us += o.memory_us;
  exposed_memory_us += o.exposed_memory_us;
  idle_us += o.idle_us;
  return *this;
}

gpu_time_breakdown breakdown_window(const std::vector<gpu_activity>& activities,
                                    double longest_us, double begin_us, double end_us) {
  gpu_time_breakdown b;
  if (!(end_us > begin_us))
    return b;
  b.window_us = end_us - begin_us;

  // Activities starting before begin - longest cannot reach into the window.
  auto first = std::lower_bound(activities.begin(), activities.end(), begin_us - longest_us,
                                [](const gpu_activity& a, double t) { return a.start_us < t; });
  std::vector<edge> edges;
  for (auto it = first; it != activities.end() && it->start_us < end_us; ++it) {
    double s = std::max(it->start_us, begin_us);
    double e = std::min(it->end_us, end_us);
    if (e <= s)
      continue;
    edges.push_back({s, +1, it->kind});
    edges.push_back({e, -1, it->kind});
  }
  // Ends before starts at equal times, so touching intervals leave no gap
  // either way and the counters never go negative.
  std::sort(edges.begin(), edges.end(), [](const edge& x, const edge& y) {
    return x.t < y.t || (x.t == y.t && x.delta < y.delta);
  });

  // Sweep: between two edges the set of running kinds is constant.
  int running[kind_count] = {};
  double prev = begin_us;
  for (const edge& e : edges) {
    double dt = e.t - prev;
    if (dt > 0) {
      bool compute = running[0] > 0, comm = running[1] > 0;
      bool memory = running[2] > 0 || running[3] > 0;
      if (compute || comm || memory)
        b.busy_us += dt;
      if (compute)
        b.compute_us += dt;
      if (comm) {
        b.comm_us += dt;
        if (!compute)
          b.exposed_comm_us += dt;
      }
      if (memory) {
        b.memory_us += dt;
        if (!compute && !comm)
          b.exposed_memory_us += dt;
      }
    }
    running[static_cast<int>(e.kind)] += e.delta;
    prev = e.t;
  }
  b.idle_us = b.window_us - b.busy_us;
  return b;
}

} // namespace paratune
