#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/experiment_spec.hpp"
#include "core/tpu/mesh_model.hpp"
#include "core/tpu/tpu_mesh.hpp"

namespace paratune {

/// One mesh the TPU tuning session may run next, with why.
struct mesh_step {
  tpu_mesh mesh;
  std::string title;  ///< the proposal's title, or the planner's rank
  /// A proposal the model predicts slower than the mesh diagnosed, kept to
  /// find the model's errors out.
  bool exploratory = false;
  /// The planner's predicted step time (planned_mesh_steps; 0 for a proposal).
  double predicted_step_s = 0;
};

/// The planner's meshes for `exp`, fastest first by the mesh model behind
/// its HBM screen (plan_meshes, as `paratune plan -e` ranks), at most
/// `count`; under `cal`, the model as the session's measured runs corrected
/// it (fit_mesh_calibration), so the ranking follows the measurements.
std::vector<mesh_step> planned_mesh_steps(const experiment_spec& exp, std::size_t count,
                                          const mesh_calibration& cal = {});

/// How much faster (a share of the job's predicted step) the planner's
/// fastest mesh must be predicted for the session to run it before the
/// job's own mesh.
inline constexpr double first_jump_min_gain = 0.05;

/// The TPU session's first trial. The job's own mesh, the team's starting
/// point, unless the uncalibrated model gives the planner's fastest mesh a
/// step at least `first_jump_min_gain` shorter, or the job's mesh does not
/// fit in HBM or breaks a rule: then the planner's fastest. Every trial
/// calibrates the model, and the fastest mesh's profile does so as well as
/// the job's, but the job's own run is a trial spent where the model
/// already puts a slower mesh (at B trials the session was the planner's
/// grid at B-1 plus what the diagnosis adds). The job's mesh still runs
/// later wherever the calibrated planner or a diagnosis ranks it.
mesh_step first_mesh_trial(const experiment_spec& exp, const std::vector<mesh_step>& planned);

/// Why the job's own mesh cannot be expected to run, as the model that
/// first_mesh_trial asks (what `predict -e` prints): "predicted not to fit:
/// a peak of 33.1 GiB per chip against 29.6 GiB of usable HBM", or the
/// rules it breaks; empty when it is predicted to run. The TPU session
/// stores it with its job (tpu_session_opened), so that an answer without
/// a run of the job's mesh says why.
std::string job_mesh_verdict(const experiment_spec& exp);

/// The TPU session's next trial (`tried`: every mesh run; a mesh is its
/// sizes, whichever axes it shows at 1), the first untried of:
///  1. the planner's fastest mesh: one jump to where the model puts the
///     optimum of the whole space, which single moves from the job's mesh
///     may need many trials to reach (ASAP's v5p-512 job is four axes away);
///     once runs have calibrated the model, where the calibrated model puts
///     it (again, when the calibration moves it to a mesh not yet run);
///  2. the proposals of the best run so far, ASAP's diagnosis of the
///     fastest measured mesh: a failed or slower trial does not pull the
///     search away from it;
///  3. the proposals of the latest diagnosis that proposed anything;
///  4. the planner's next meshes, fastest first, rather than ending the
///     session while its budget lasts;
///  5. exploratory proposals (predicted slower than the mesh diagnosed),
///     best run's first: once the diagnosis has no predicted gain left,
///     the meshes the model ranks next over the whole space are likelier
///     to pay than a move it predicts to lose.
/// None when all are spent. actors/tpu_session.cpp and
/// bench/tpu_tuning_quality.cpp both decide so.
std::optional<mesh_step> next_mesh_trial(const std::vector<mesh_step>& planned,
                                         const std::vector<mesh_step>* best_run,
                                         const std::vector<mesh_step>& latest,
                                         const std::vector<tpu_mesh>& tried);

} // namespace paratune
