#pragma once

#include <string>
#include <vector>

#include "core/model_spec.hpp"
#include "core/tpu/mesh_workload.hpp"
#include "core/tpu/tpu_mesh.hpp"

namespace paratune {

/// What one chip holds and computes under a mesh: the mesh model's
/// counterpart of core/perf's perf_context. `ici` and `dcn` sizes multiply.
struct mesh_shapes {
  tpu_mesh ici, dcn;
  int replica = 1, data = 1, fsdp = 1, seq = 1, expert = 1, model = 1;

  // Token split (per micro-step).
  int batch_shards = 1;     ///< replica x data x fsdp x expert
  double batch_local = 0;   ///< sequences per chip per micro-step
  double seq_local = 0;     ///< sequence positions per chip
  double tokens_local = 0;  ///< batch_local x seq_local: rows of every matmul

  // Model dimensions as doubles.
  double h = 0, q = 0, kv = 0, ffn = 0, moe_ffn = 0, vocab = 0, layers = 0, head_dim = 0;
  double heads = 0, experts = 0, topk = 0;
  bool swiglu = false, moe = false;

  // Parameters (whole model) and how they are sharded.
  double dense_params = 0;        ///< attention, norms, dense MLP, router; all layers
  double expert_params = 0;       ///< routed experts, all layers
  double embedding_params = 0;
  int dense_weight_shards = 1;    ///< model x fsdp (x seq when it shards weights)
  int expert_weight_shards = 1;   ///< expert x model x fsdp
  int grad_replicas = 1;          ///< chips that hold the same dense weight shard
  double local_params = 0;        ///< parameters stored on one chip
  double local_optimizer_params = 0; ///< parameters whose optimizer state one chip holds

  /// Reasons the mesh cannot run this job (sizes that do not divide).
  std::vector<std::string> problems;
};

/// `dcn` may be all ones (one slice).
mesh_shapes make_mesh_shapes(const model_spec& m, const tpu_mesh& ici, const tpu_mesh& dcn,
                             const mesh_workload& w);

} // namespace paratune
