#pragma once

// What a profiled TPU run says about the mesh model's error: the measured
// time in compute-bound ops, HBM-bound ops and exposed collectives against
// what the model predicts for that run's mesh. The TPU session re-ranks the
// planner's meshes with it, so that the next jump goes where the measured
// runs, not the uncorrected model, put the optimum.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/experiment_spec.hpp"
#include "core/tpu/mesh_model.hpp"

namespace paratune {

/// The calibration under which the mesh model predicts what one run of
/// `exp` (at `exp.mesh`) measured: `step_ms` and its op time by class
/// (diagnosis_report::time_by_class: "compute", "hbm_bandwidth",
/// "communication", shares of the profiled op time). The compute scale is
/// the compute-bound op time against the model's; the HBM and collective
/// scales are those under which the model gives the measured step and
/// exposed collective time (a scale the run cannot tell stays 1). Each is
/// bounded to [0.25, 4]. None when the run's profile has no compute time
/// or the mesh does not predict.
std::optional<mesh_calibration> fit_mesh_calibration(const experiment_spec& exp, double step_ms,
                                                     const std::map<std::string, double>& time_by_class);

/// Several runs' fits as one: the geometric mean of each scale (1s for none).
mesh_calibration combine_calibrations(const std::vector<mesh_calibration>& fits);

} // namespace paratune
