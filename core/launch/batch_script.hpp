#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/pool_spec.hpp"

namespace paratune {

/// How a batch script starts a trial's command on the job's nodes.
struct batch_layout {
  slurm_tasks tasks = slurm_tasks::one;
  int gpus_per_node = 1;     ///< per_gpu: the tasks srun starts on each node
  /// The first words of argv that run once, on the batch host, around the
  /// tasks: paratune-relay and its options up to its "--". srun comes after
  /// them, so one relay publishes the output of every task.
  size_t wrapper_words = 0;
  /// Further placeholders the command's words may hold, each read from a
  /// shell variable the script sets before it ("{data_path}" -> "DATA_PATH"):
  /// the paths a production script leaves for its user to fill in
  /// (production_batch_script). Expanded as the runtime placeholders are.
  std::vector<std::pair<std::string, std::string>> script_variables = {};
};

/// A Slurm batch script that changes to `workdir`, exports `env` and runs
/// `argv` as exactly those arguments: exec'd once (slurm_tasks::one), or
/// under srun with one task per node or per GPU, `set -eu` throughout.
///
/// Every value goes through shell_quote(), so nothing in a model path, job
/// name or Megatron argument is ever read by the shell as code. The one
/// exception is made by paratune itself: the runtime placeholders
/// ({node_rank}, {master_addr}, {master_port}, {job_id}; see
/// launch_template) become the shell variables that hold them, double-quoted,
/// on the node that runs the task. The script sets MASTER_ADDR (the job's
/// first node) and MASTER_PORT (a port free there, else 20000 + the job id
/// modulo 20000) whenever the command runs under srun or names them; per
/// GPU, each task also gets RANK, LOCAL_RANK and WORLD_SIZE from Slurm's
/// task ids, as torch.distributed's env:// rendezvous reads them.
///
/// Scheduler options (partition, nodes, time) are not written as #SBATCH
/// lines, where a newline in a value would open a new directive: the Slurm
/// client passes them as sbatch arguments or REST fields. Throws
/// input_error for an environment name that is not a shell identifier, a
/// value with a NUL byte, or a layout whose wrapper takes the whole argv.
std::string batch_script(const std::vector<std::string>& argv, const std::string& workdir,
                         const std::map<std::string, std::string>& env = {},
                         const batch_layout& layout = {});

} // namespace paratune
