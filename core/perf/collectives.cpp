#include "core/perf/collectives.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace paratune {

namespace {

// "16x16" or "4x4x8" -> 256 or 128; 0 when empty or malformed.
int topology_chips(const std::string& topo) {
  if (topo.empty())
    return 0;
  int product = 1, current = 0;
  for (char ch : topo) {
    if (ch >= '0' && ch <= '9') {
      current = current * 10 + (ch - '0');
    } else if (ch == 'x' || ch == 'X') {
      product *= std::max(current, 1);
      current = 0;
    } else {
      return 0;
    }
  }
  return product * std::max(current, 1);
}

// Latency units of one collective: the link latency is per collective
// (Calculon's convention), growing with the depth of NCCL's trees on large
// groups.
double latency_steps(int n) {
  if (n <= 1)
    return 0;
  return std::max(1.0, std::ceil(std::log2(double(n))) / 2);
}

} // namespace

int scale_up_domain(const cluster_spec& c) {
  const int chips = topology_chips(c.ici_topology);
  return chips > 0 ? chips : std::max(1, c.devices_per_node);
}

group_link link_for_group(const cluster_spec& c, const device_profile& prof,
                          const perf_calibration& cal, int size, int stride) {
  group_link g;
  g.size = std::max(1, size);
  const int domain = scale_up_domain(c);
  const double up = c.scale_up.gbps * 1e9 * prof.scale_up_efficiency
                    * cal.scale_up_efficiency;
  const double span = double(g.size - 1) * std::max(1, stride) + 1;
  if (span <= domain) {
    g.bytes_per_s = up;
    g.latency_s = c.scale_up.latency_us * 1e-6;
    return g;
  }
  g.crosses_nodes = true;
  // Members of the group inside one node; each brings its own NIC.
  const int local = stride >= domain ? 1 : std::min(g.size, domain / std::max(1, stride));
  const double out = c.scale_out.gbps * 1e9 * prof.scale_out_efficiency
                     * cal.scale_out_efficiency;
  g.bytes_per_s = std::min(up, local * out);
  g.latency_s = c.scale_out.latency_us * 1e-6;
  return g;
}

double all_reduce_time(const group_link& g, double bytes) {
  if (g.size <= 1 || bytes <= 0)
    return 0;
  const double n = g.size;
  return 2 * latency_steps(g.size) * g.latency_s
         + 2 * (n - 1) / n * bytes / g.bytes_per_s;
}

double reduce_scatter_time(const group_link& g, double bytes) {
  if (g.size <= 1 || bytes <= 0)
    return 0;
  const double n = g.size;
  return latency_steps(g.size) * g.latency_s + (n - 1) / n * bytes / g.bytes_per_s;
}

double all_gather_time(const group_link& g, double bytes) {
  return reduce_scatter_time(g, bytes);
}

double all_to_all_time(const group_link& g, double bytes) {
  if (g.size <= 1 || bytes <= 0)
    return 0;
  const double n = g.size;
  return 2 * latency_steps(g.size) * g.latency_s + (n - 1) / n * bytes / g.bytes_per_s;
}

double p2p_time(const group_link& g, double bytes) {
  if (bytes <= 0)
    return 0;
  return g.latency_s + bytes / g.bytes_per_s;
}

} // namespace paratune
