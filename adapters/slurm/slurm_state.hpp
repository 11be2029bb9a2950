#pragma once

#include <string_view>

namespace paratune {

/// A Slurm job's state as paratune acts on it. Slurm has more states than
/// these; parse_slurm_state folds the rest into the nearest one or into
/// `unknown` (the raw text stays in slurm_job_status::raw_state).
enum class slurm_state {
  pending,
  running,
  completing,
  completed,
  failed,
  cancelled,
  timeout,
  node_fail,
  out_of_memory,
  preempted,
  unknown,
};

/// Slurm's spelling (upper case, e.g. "NODE_FAIL"), as scontrol and
/// slurmrestd print it. Flags after a '+' ("CANCELLED+") are ignored.
slurm_state parse_slurm_state(std::string_view text);
/// Lower case, e.g. "node_fail".
std::string_view to_string(slurm_state state);
/// Whether the job has ended and will not change state again.
bool is_final(slurm_state state);

} // namespace paratune
