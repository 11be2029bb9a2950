#pragma once

#include <string>

#include "core/cluster_spec.hpp"
#include "core/tpu/remat_policy.hpp"

namespace paratune {

/// The training step a mesh runs, as a MaxText config states it. The global
/// batch and sequence length are fixed by the experiment; a mesh only
/// decides how they are split.
struct mesh_workload {
  int global_batch = 1;          ///< sequences per optimizer step
  int seq_len = 2048;
  int accumulation_steps = 1;    ///< gradient accumulation micro-steps per step
  remat_policy remat = remat_policy::full;
  /// MaxText's context axis also FSDP-shards the weights; ASAP's `seq` (and
  /// the default here) replicates them and all-reduces their gradients.
  bool seq_shards_weights = false;
  /// ZeRO-1 (MaxText shard_optimizer_over_data): optimizer state sharded
  /// over the data and replica axes as well.
  bool optimizer_over_data = false;
  /// Striped causal context parallelism: every seq shard does equal work.
  bool cp_load_balanced = false;
  precision prec = precision::bf16;
  double param_bytes = 4;        ///< MaxText keeps fp32 parameters and gradients
};

} // namespace paratune
