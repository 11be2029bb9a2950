#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"
#include "core/tpu/mesh_model.hpp"

namespace paratune {

/// What `plan --experiment` ranks: every mesh of one TPU job.
struct mesh_plan_request {
  model_spec model;
  cluster_spec cluster;
  tpu_slice slice;
  mesh_workload workload;
  std::size_t top = 10;
  /// The model's time components as measured runs corrected them
  /// (core/diagnosis/mesh_calibration_fit.hpp); 1s before any run.
  mesh_calibration calibration;
};

struct mesh_plan_entry {
  mesh_prediction prediction;  ///< holds the ICI and DCN meshes
};

struct mesh_plan_result {
  std::size_t candidates = 0;       ///< ICI x DCN meshes enumerated
  std::size_t fitting = 0;          ///< valid and within HBM
  std::size_t memory_rejected = 0;  ///< valid but over HBM
  std::size_t invalid = 0;          ///< a size that does not divide
  /// Why the invalid ones cannot run, by kind ("attention heads ... over
  /// model"), with one example each; a mesh breaking several counts under each.
  std::map<std::string, std::size_t> rejected_by_rule;
  std::map<std::string, std::string> rule_example;
  std::vector<mesh_plan_entry> top;  ///< fastest first
};

/// Every ICI mesh of one slice over data, fsdp, seq and model (and expert
/// for MoE models) times every DCN mesh of the slices over data and fsdp,
/// predicted with predict_mesh() and ranked by step time.
mesh_plan_result plan_meshes(const mesh_plan_request& r);

/// The ICI meshes plan_meshes() ranks: every way to spread one slice's
/// chips over data, fsdp, seq and model (and expert for MoE models),
/// whether or not the sizes divide the job's.
std::vector<tpu_mesh> planner_ici_meshes(const model_spec& m, int chips_per_slice);

/// Every way to write `n` as an ordered product of `parts` factors.
std::vector<std::vector<int>> ordered_factorizations(int n, int parts);

} // namespace paratune
