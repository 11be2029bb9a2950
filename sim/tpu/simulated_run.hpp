#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/tpu/profile_synthesis.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/tpu/maxtext_rule_table.hpp"
#include "core/tpu/mesh_model.hpp"

namespace paratune::tpusim {

/// The hidden truth of a simulated TPU cluster: the mesh model with its
/// compute, HBM and collective times scaled by factors drawn once per
/// (seed, model, hardware), plus a small per-run noise. Tuning sees only
/// the profiles it writes, never these factors.
mesh_calibration hidden_calibration(const experiment_spec& exp, std::uint64_t seed);

/// One simulated training run of `exp` under `mesh`.
struct tpu_run {
  mesh_prediction truth;
  synthetic_profile profile;
  bool oom = false;
  std::string error;       ///< XLA's (or MaxText's) wording when the run fails
  /// The MaxText rule that stopped the run at start-up, if one did.
  std::optional<maxtext_rule> refused_by;
};

tpu_run simulate_tpu_run(const experiment_spec& exp, const tpu_mesh& mesh, std::uint64_t seed,
                         int steps);

} // namespace paratune::tpusim
