#pragma once

#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"
#include "core/tpu/mesh_memory.hpp"
#include "core/tpu/mesh_workload.hpp"
#include "core/tpu/tpu_mesh.hpp"
#include "core/tpu/tpu_topology.hpp"

namespace paratune {

/// One kind of work in a training step on one chip, as an Xprof op profile
/// would group it.
struct mesh_op {
  std::string name;        ///< "attention and MLP matmuls", "all-reduce (model)", ...
  std::string category;    ///< op_profile category: "convolution fusion", "all-reduce", ...
  std::string bound_by;    ///< "Compute", "HBM", or for collectives "ICI" / "DCN"
  double seconds = 0;      ///< device time per step
  double exposed_s = 0;    ///< the part on the critical path
  double flops = 0;        ///< per step
  double hbm_bytes = 0;    ///< per step
  double comm_bytes = 0;   ///< per step, what one chip sends
  long long occurrences = 0;
  bool collective = false;
  mesh_axis axis = mesh_axis::data;  ///< collectives only
};

/// One mesh axis: its placement, its communication and MaxText's
/// arithmetic-intensity test (notes/performance_model.md §2.6).
struct mesh_axis_report {
  mesh_axis axis = mesh_axis::data;
  int size = 1;
  std::string placement;
  std::string role;              ///< what the axis shards and which collective it costs
  double comm_s = 0;             ///< collective time per step
  double exposed_s = 0;
  double intensity = 0;          ///< FLOPs per byte the axis moves (the §2.6 rule)
  double hardware_intensity = 0; ///< peak FLOP/s / the axis's link bytes/s
  bool compute_bound = true;     ///< intensity >= hardware intensity
};

/// Multipliers on the model's time components. 1 is the model; the
/// simulated TPU cluster draws hidden values around 1, and a diagnosis may
/// fit them to a measured profile.
struct mesh_calibration {
  double compute_scale = 1;  ///< matmul and attention time
  double hbm_scale = 1;      ///< memory-bound op time
  double comm_scale = 1;     ///< collective time
};

struct mesh_prediction {
  tpu_mesh ici, dcn;
  std::vector<std::string> problems;  ///< why it cannot run (sizes that do not divide)
  bool valid() const { return problems.empty(); }

  double step_s = 0;
  double compute_s = 0;         ///< compute-bound op time
  double hbm_s = 0;             ///< HBM-bound op time
  double comm_s = 0;            ///< all collective time (overlapped or not)
  double exposed_comm_s = 0;    ///< collective time on the critical path
  /// Model FLOPs per step and chip as MaxText counts them: 6 x matmul
  /// parameters (the logits once, not the embedding lookup) x tokens, plus
  /// attention counted whole (12 L q S per token); no recomputation.
  double model_flops_per_chip = 0;
  double model_flops_causal_per_chip = 0;  ///< attention halved (causal mask)
  double mfu = 0;          ///< model_flops_per_chip / step / peak: MaxText's published MFU
  double mfu_causal = 0;   ///< the same with causal attention
  double tflops_per_chip = 0;  ///< model_flops_per_chip / step, in TFLOP/s
  double tokens_per_s = 0;      ///< whole job
  bool exact_placement = true;

  std::vector<mesh_op> ops;     ///< longest first
  std::vector<mesh_axis_report> axes;  ///< axes of size > 1, canonical order
  mesh_memory memory;
  /// memory_capacity when it does not fit, else the largest of compute,
  /// hbm_bandwidth and communication (exposed).
  std::string limiting;

  double comm_share() const { return step_s > 0 ? exposed_comm_s / step_s : 0; }
};

/// The MFU a measured step of `step_ms` means under `ici` x `dcn`: the
/// model FLOPs per chip the mesh model counts for it (as MaxText counts
/// them), over the step, over the chip's dense bf16 peak
/// (core/model_flops_utilization.hpp, as a GPU trial's MFU). 0 when the
/// step is not positive.
double measured_mesh_mfu(const model_spec& m, const cluster_spec& cluster, const tpu_slice& slice,
                         const tpu_mesh& ici, const tpu_mesh& dcn, const mesh_workload& w,
                         double step_ms);

/// Predicts one training step of `m` on `slice` under the mesh `ici`
/// (per slice) x `dcn` (across slices; all ones for one slice).
/// Compute runs at the device's GEMM efficiency for each local matmul shape
/// (core/perf gemm model: a matmul with few local tokens is HBM-bound);
/// collectives are ring/torus alpha-beta over each axis's links; FSDP and
/// data-parallel collectives overlap with up to 80% of compute, tensor and
/// context collectives are partly exposed, expert all-to-alls fully.
/// Constants and their sources: docs/diagnosis.md.
mesh_prediction predict_mesh(const model_spec& m, const cluster_spec& cluster,
                             const tpu_slice& slice, const tpu_mesh& ici, const tpu_mesh& dcn,
                             const mesh_workload& w, const mesh_calibration& cal = {});

} // namespace paratune
