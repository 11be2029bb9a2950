#pragma once

// The command of one TPU trial: MaxText's arguments for its mesh, on the
// trial's pool. The TPU session proposes it; the validator runs it as it
// runs every framework's trials.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/experiment_spec.hpp"
#include "core/tpu/tpu_mesh.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// What a TPU trial's command is made from.
struct tpu_trial_launch {
  const experiment_spec* experiment = nullptr;
  std::string experiment_file;   ///< what paratune-tpu-sim reads
  std::string simulator;         ///< paratune-tpu-sim (simulated pools)
  std::uint64_t seed = 1;
  double time_scale = 0;
  double failure_rate = 0;
  int steps = 6;                 ///< MaxText's `steps`; step 0 is compilation
  std::string session;
  std::string runs_dir;          ///< base_output_directory on pools without a `workdir:`
  int trial = 0;
  tpu_mesh mesh;
  const wire::pool_wire* pool = nullptr;
};

/// MaxText's base_output_directory for the trial: the pool's
/// `workdir:`/<session>, else the session's runs folder.
std::string tpu_output_base(const tpu_trial_launch& l);
/// The trial's own folder, base/t<n>: MaxText writes its profile under it.
std::string tpu_trial_dir(const tpu_trial_launch& l);

/// The trial's argv: paratune-tpu-sim's on a simulated pool, the pool's
/// launch template with MaxText's arguments in its placeholder otherwise.
/// Throws input_error with MaxText's own words when MaxText refuses the
/// mesh (or would train another batch than the experiment's): such a
/// trial is never launched.
std::vector<std::string> tpu_trial_argv(const tpu_trial_launch& l);

/// A TPU trial as the session stores it: its row (ended_ms 0), and the
/// proposal the validator runs. No proposal when MaxText refuses the mesh:
/// the row then ends with MaxText's words, and nothing is launched.
struct tpu_trial_records {
  wire::tpu_trial_row row;
  std::optional<wire::proposal> proposal;
};

/// The records of trial l.trial, a run of l.mesh on l.pool (`title`: why
/// this mesh; `retry_of`: the failed trial it runs again), at `now_ms`.
tpu_trial_records tpu_trial_records_for(const tpu_trial_launch& l, const std::string& title,
                                        int retry_of, std::int64_t now_ms);

} // namespace paratune
