#pragma once

#include "core/tpu/mesh_shapes.hpp"

namespace paratune {

/// HBM one chip needs at its peak, in GiB.
struct mesh_memory {
  double params_gib = 0;       ///< parameter shard (param_bytes each)
  double grads_gib = 0;        ///< gradient shard, same sharding and width
  double optimizer_gib = 0;    ///< Adam moments (8 bytes per parameter of the shard)
  double activations_gib = 0;  ///< saved for the backward pass (remat policy)
  double workspace_gib = 0;    ///< gathered layer weights, gathered KV, logits
  double total_gib = 0;
  double limit_gib = 0;        ///< usable HBM (what XLA leaves to the program)
  bool fits = false;
};

/// Fraction of HBM a program may use; XLA keeps the rest for itself.
inline constexpr double usable_hbm_fraction = 0.94;

mesh_memory estimate_mesh_memory(const mesh_shapes& s, const mesh_workload& w,
                                 double hbm_gib);

} // namespace paratune
