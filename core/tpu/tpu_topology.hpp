#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/perf/device_profile.hpp"
#include "core/tpu/tpu_mesh.hpp"

namespace paratune {

/// A TPU job's chips: one or more identical slices, each a torus of ICI
/// links ("8x8x8" on v5p, "16x16" on v5e/v6e), slices joined over DCN.
struct tpu_slice {
  std::vector<int> dims;  ///< chips along each torus dimension
  int num_slices = 1;

  int chips_per_slice() const;
  int chips() const { return chips_per_slice() * num_slices; }
};

/// Parses "8x8x8" or "16x16" (1 to 3 dimensions). Throws input_error.
tpu_slice parse_slice(std::string_view text, int num_slices = 1);
std::string to_string(const tpu_slice& s);

/// How one mesh axis is connected: its ICI part (a ring or line segment of
/// one or more torus dimensions) and its DCN part (across slices).
struct axis_link {
  mesh_axis axis = mesh_axis::data;
  int ici_size = 1;
  double ici_bytes_per_s = 0;  ///< collective bandwidth one chip gets over the ICI part
  int dcn_size = 1;
  double dcn_bytes_per_s = 0;  ///< per chip over DCN
  double ici_latency_s = 0;
  double dcn_latency_s = 0;
  std::string placement;       ///< "z:8 ring", "y:4 line + x:8 ring", "dcn:2"

  int size() const { return ici_size * dcn_size; }
};

/// Every axis of a mesh placed on a slice.
struct mesh_placement {
  std::array<axis_link, 6> axes;
  /// False when an axis did not factor onto the torus dimensions; it then
  /// gets one link's bandwidth (what a scattered group can count on).
  bool exact = true;

  const axis_link& of(mesh_axis a) const { return axes[static_cast<int>(a)]; }
};

/// Places `ici` on one slice (innermost axis, `model`, first, each axis
/// taking the next torus dimensions) and `dcn` across slices. Per segment a
/// full dimension with wraparound is a ring (2 links: both directions), a
/// partial one a line (1 link); an axis spanning several dimensions drives
/// them all at once, so their bandwidths add (scaling-book, "all-gather over
/// multiple axes"). Wraparound: v5p dimensions that are multiples of 4, v5e
/// and v6e only the full 16-chip pod dimension.
mesh_placement place_mesh(const tpu_mesh& ici, const tpu_mesh& dcn, const tpu_slice& slice,
                          const cluster_spec& cluster, const device_profile& prof);

/// Ring collectives over one axis (hierarchical across DCN: ICI reduce-scatter,
/// DCN all-reduce of the 1/ici shard, ICI all-gather). `bytes` is the full
/// buffer on one chip (the reduced tensor, the gathered result).
double axis_all_reduce_s(const axis_link& l, double bytes);
double axis_all_gather_s(const axis_link& l, double bytes);
double axis_reduce_scatter_s(const axis_link& l, double bytes);
/// `bytes` is what one chip holds before the exchange; all-to-all on a ring
/// or torus segment is bisection-bound, so it costs more on larger axes.
double axis_all_to_all_s(const axis_link& l, double bytes);

} // namespace paratune
