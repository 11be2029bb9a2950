#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/model_spec.hpp"
#include "core/tpu/maxtext_rules.hpp"
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
/// fsdp, context, tensor, expert; paratune's replica axis is data
/// parallelism and counts into data, its seq axis is MaxText's context),
/// per_device_batch_size (the global batch over chips and accumulation
/// steps), max_target_length, gradient_accumulation_steps, remat_policy
/// (with pure_nnx_decoder=true for `none`), and the model
/// (maxtext_model_args: `model_name` where MaxText ships the model, every
/// architecture key otherwise; enable_dropout=false either way).
/// Each is one argv entry; no shell reads them.
std::vector<std::string> render_maxtext_args(const maxtext_launch& launch);

/// The slice, slices and batch the rules check `launch`'s overrides against.
maxtext_target target_of(const maxtext_launch& launch);

/// render_maxtext_args, checked against MaxText's rule table: throws
/// input_error naming every rule the overrides trip (a refusal, or a run
/// MaxText would change), or why MaxText cannot build the model
/// (maxtext_cannot_build), so nothing MaxText refuses is ever written.
std::vector<std::string> checked_maxtext_args(const maxtext_launch& launch);

/// The launch MaxText's key=value overrides describe, read on top of `base`
/// (the experiment's model, slices and workload) as MaxText reads them: the
/// inverse of render_maxtext_args. The ICI and DCN axes paratune has a mesh
/// axis for (data, fsdp, context, tensor, expert; an fsdp or data axis of
/// -1 takes the chips the others leave), per_device_batch_size with
/// gradient_accumulation_steps (the batch trained is chips x per-device
/// batch x steps), max_target_length and remat_policy. The model the
/// overrides build (a model_name's file under the keys written) must be
/// `base`'s model: sizes, decoder block, rope, epsilon, biases and
/// activations. Keys that are not the launch's (run_name, steps,
/// profiler, ...) and the `sequence` axis
/// MaxText drops are passed over. Throws input_error naming the override:
/// no `=`, a value that is not a number, an unknown remat policy, an axis
/// paratune models no mesh axis for set above 1, a model key that differs.
maxtext_launch read_maxtext_args(std::span<const std::string> overrides,
                                 const maxtext_launch& base);

} // namespace paratune
