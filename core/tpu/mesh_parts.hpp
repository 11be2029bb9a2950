#pragma once

// Internal to the mesh model: the pieces predict_mesh() assembles.

#include <vector>

#include "core/perf/gemm_efficiency.hpp"
#include "core/tpu/mesh_model.hpp"
#include "core/tpu/mesh_shapes.hpp"

namespace paratune::mesh_detail {

/// Everything the op builders share.
struct mesh_inputs {
  const mesh_shapes* s = nullptr;
  const mesh_workload* w = nullptr;
  const mesh_placement* placement = nullptr;
  kernel_target target;
  const device_profile* profile = nullptr;
  mesh_calibration cal;
  int micro_steps = 1;
};

/// Matmuls, attention, element-wise fusions, logits and the optimizer update.
std::vector<mesh_op> compute_ops(const mesh_inputs& in);

/// Collectives of every axis, with `exposed_s` still unset for the
/// overlappable ones (FSDP gathers, gradient reductions).
std::vector<mesh_op> collective_ops(const mesh_inputs& in);

/// Sets exposed time: tensor/context collectives partly, expert all-to-all
/// fully, FSDP and gradient collectives beyond `overlap_budget_s`.
void expose_collectives(std::vector<mesh_op>& ops, double overlap_budget_s);

/// One report per axis of size > 1.
std::vector<mesh_axis_report> axis_reports(const mesh_inputs& in,
                                           const std::vector<mesh_op>& ops);

} // namespace paratune::mesh_detail
