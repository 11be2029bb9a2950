#pragma once

#include <string>
#include <vector>

#include "core/model_spec.hpp"
#include "core/tpu/mesh_workload.hpp"
#include "core/tpu/tpu_mesh.hpp"

namespace paratune {

/// What a MaxText train.py run is told: the model, the ICI mesh, the mesh
/// across slices and the step.
struct maxtext_launch {
  model_spec model;
  tpu_mesh ici;
  tpu_mesh dcn;          ///< across slices; all ones on one slice
  mesh_workload workload;
  int chips = 1;         ///< every chip of every slice
};

/// MaxText's key=value arguments (after `MaxText/train.py
/// MaxText/configs/base.yml`), as its config names them:
/// ici_<axis>_parallelism and dcn_<axis>_parallelism for every axis (data,
/// fsdp, sequence, tensor, expert; paratune's replica axis is data
/// parallelism and counts into data), per_device_batch_size,
/// max_target_length, gradient_accumulation_steps, remat_policy, and the
/// model's base_* sizes. Each is one argv entry; no shell reads them.
std::vector<std::string> render_maxtext_args(const maxtext_launch& launch);

} // namespace paratune
