#pragma once

#include <string>

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"
#include "core/perf/perf_model.hpp"
#include "core/diagnosis/diagnosis_evidence.hpp"
#include "core/tpu/mesh_workload.hpp"
#include "core/tpu/tpu_mesh.hpp"
#include "core/tpu/tpu_topology.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// The job a diagnosis is about: the model, the hardware and its current
/// parallel layout (a JAX mesh on TPU, a Megatron-LM configuration on GPU).
struct experiment_spec {
  std::string name;
  model_spec model;
  cluster_spec cluster;
  std::string cluster_ref;
  device_platform platform = device_platform::tpu;

  // TPU jobs.
  tpu_slice slice;
  tpu_mesh mesh;       ///< ICI mesh, per slice
  tpu_mesh dcn_mesh;   ///< across slices (all ones for one slice)
  mesh_workload workload;

  // GPU jobs.
  int nodes = 1;
  int gpus = 0;  ///< part of one node (hardware: gpus:); 0 means whole nodes
  training_config megatron;  ///< includes gbs and seq
  precision prec = precision::bf16;
  perf_calibration stack;    ///< stack facts (experiment `stack:`), flash attention by default

  int devices() const {
    if (platform == device_platform::tpu)
      return slice.chips();
    return gpus > 0 ? gpus : nodes * cluster.devices_per_node;
  }
};

} // namespace paratune
