#include "core/tpu/tpu_topology.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/input_error.hpp"
#include "core/value_range.hpp"

namespace paratune {

namespace {

// Latency units of one collective, as core/perf counts them.
double latency_steps(int n) {
  return n <= 1 ? 0 : std::max(1.0, std::ceil(std::log2(double(n))) / 2);
}

bool wraps(const tpu_slice& slice, int dim_size, const cluster_spec& c) {
  if (slice.dims.size() >= 3)
    return dim_size % 4 == 0;  // v5p: full 4x4x4 cubes are wired into tori
  return dim_size >= 16;       // v5e / v6e: only the full pod row wraps
}

struct dim_state {
  int size = 1;
  int used = 1;  ///< product of factors already taken by inner axes
};

// Takes `want` chips for one axis from the torus dimensions, innermost
// dimension (the last written) first. Returns false when it does not factor.
bool take_segments(std::vector<dim_state>& dims, int want, const tpu_slice& slice,
                   const cluster_spec& c, double link, axis_link& out) {
  int left = want;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0 && left > 1; --i) {
    auto& d = dims[i];
    const int free = d.size / d.used;
    if (free <= 1)
      continue;
    int take = std::gcd(free, left);
    if (take <= 1)
      continue;
    const bool ring = take == d.size && wraps(slice, d.size, c);
    out.ici_bytes_per_s += ring ? 2 * link : link;
    if (!out.placement.empty())
      out.placement += " + ";
    out.placement += std::string(1, "xyz"[std::min(i, 2)]) + ":" + std::to_string(take)
                     + (ring ? " ring" : " line");
    d.used *= take;
    left /= take;
  }
  return left == 1;
}

} // namespace

int tpu_slice::chips_per_slice() const {
  int n = 1;
  for (int d : dims)
    n *= d;
  return n;
}

tpu_slice parse_slice(std::string_view text, int num_slices) {
  tpu_slice s;
  s.num_slices = std::max(1, num_slices);
  int current = 0;
  bool digit = false;
  for (char ch : text) {
    if (ch >= '0' && ch <= '9') {
      current = current * 10 + (ch - '0');
      digit = true;
      if (current > 4096)
        throw input_error("slice '" + std::string(text) + "': dimension too large");
    } else if ((ch == 'x' || ch == 'X') && digit) {
      s.dims.push_back(current);
      current = 0;
      digit = false;
    } else {
      throw input_error("slice '" + std::string(text) + "': expected dimensions like 8x8x8");
    }
  }
  if (!digit)
    throw input_error("slice '" + std::string(text) + "': expected dimensions like 8x8x8");
  s.dims.push_back(current);
  if (s.dims.size() > 3 || std::count(s.dims.begin(), s.dims.end(), 0) > 0)
    throw input_error("slice '" + std::string(text) + "': 1 to 3 positive dimensions");
  int64_t chips = 1;
  for (int d : s.dims)
    chips *= d;
  if (chips > max_devices)
    throw input_error("slice '" + std::string(text) + "': " + std::to_string(chips)
                      + " chips is outside the allowed range 1.." + std::to_string(max_devices));
  return s;
}

std::string to_string(const tpu_slice& s) {
  std::string out;
  for (int d : s.dims)
    out += (out.empty() ? "" : "x") + std::to_string(d);
  if (s.num_slices > 1)
    out = std::to_string(s.num_slices) + " x " + out;
  return out;
}

mesh_placement place_mesh(const tpu_mesh& ici, const tpu_mesh& dcn, const tpu_slice& slice,
                          const cluster_spec& cluster, const device_profile& prof) {
  mesh_placement p;
  std::vector<dim_state> dims;
  for (int d : slice.dims)
    dims.push_back({d, 1});
  // scale_up.gbps is a ring's worth (both directions) along one dimension.
  const double link = cluster.scale_up.gbps / 2 * 1e9 * prof.scale_up_efficiency;
  const double dcn_bw = cluster.scale_out.gbps * 1e9 * prof.scale_out_efficiency;
  for (auto it = all_mesh_axes.rbegin(); it != all_mesh_axes.rend(); ++it) {
    auto& l = p.axes[static_cast<int>(*it)];
    l.axis = *it;
    l.ici_size = ici.at(*it);
    l.dcn_size = dcn.at(*it);
    l.ici_latency_s = cluster.scale_up.latency_us * 1e-6;
    l.dcn_latency_s = cluster.scale_out.latency_us * 1e-6;
    l.dcn_bytes_per_s = dcn_bw;
    if (l.ici_size > 1 && !take_segments(dims, l.ici_size, slice, cluster, link, l)) {
      p.exact = false;
      l.ici_bytes_per_s = link;
      l.placement = "scattered";
    }
    if (l.dcn_size > 1)
      l.placement += (l.placement.empty() ? "" : " + ") + std::string("dcn:")
                     + std::to_string(l.dcn_size);
  }
  return p;
}

double axis_all_reduce_s(const axis_link& l, double bytes) {
  if (bytes <= 0 || l.size() <= 1)
    return 0;
  double t = 0;
  if (l.ici_size > 1) {
    const double n = l.ici_size;
    t += 2 * latency_steps(l.ici_size) * l.ici_latency_s
         + 2 * (n - 1) / n * bytes / l.ici_bytes_per_s;
  }
  if (l.dcn_size > 1) {
    const double n = l.dcn_size;
    const double shard = bytes / l.ici_size;  // after the ICI reduce-scatter
    t += 2 * latency_steps(l.dcn_size) * l.dcn_latency_s
         + 2 * (n - 1) / n * shard / l.dcn_bytes_per_s;
  }
  return t;
}

double axis_all_gather_s(const axis_link& l, double bytes) {
  if (bytes <= 0 || l.size() <= 1)
    return 0;
  double t = 0;
  if (l.ici_size > 1) {
    const double n = l.ici_size;
    t += latency_steps(l.ici_size) * l.ici_latency_s + (n - 1) / n * bytes / l.ici_bytes_per_s;
  }
  if (l.dcn_size > 1) {
    const double n = l.dcn_size;
    t += latency_steps(l.dcn_size) * l.dcn_latency_s
         + (n - 1) / n * (bytes / l.ici_size) / l.dcn_bytes_per_s;
  }
  return t;
}

double axis_reduce_scatter_s(const axis_link& l, double bytes) {
  return axis_all_gather_s(l, bytes);
}

double axis_all_to_all_s(const axis_link& l, double bytes) {
  if (bytes <= 0 || l.size() <= 1)
    return 0;
  double t = 0;
  if (l.ici_size > 1) {
    // On a ring a message travels n/4 hops on average in each direction.
    const double n = l.ici_size;
    t += latency_steps(l.ici_size) * l.ici_latency_s
         + (n - 1) / n * bytes * std::max(1.0, n / 4) / l.ici_bytes_per_s;
  }
  if (l.dcn_size > 1) {
    const double n = l.dcn_size;
    t += latency_steps(l.dcn_size) * l.dcn_latency_s + (n - 1) / n * bytes / l.dcn_bytes_per_s;
  }
  return t;
}

} // namespace paratune
