#pragma once

#include <string>

#include "core/cluster_spec.hpp"

namespace paratune {

/// Which activations the backward pass recomputes (MaxText remat_policy):
/// `full` keeps only each layer's input, `minimal` keeps the matmul outputs,
/// `none` keeps everything.
enum class remat_policy { none, minimal, full };

const char* to_string(remat_policy p);
/// Accepts none, minimal (or save_dot_except_mlp, save_qkv_proj), full.
bool parse_remat_policy(const std::string& text, remat_policy& out);

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
