#pragma once

#include <map>
#include <string>
#include <vector>

namespace paratune {

/// A Slurm batch script that changes to `workdir`, exports `env` and execs
/// `argv` as exactly those arguments. Every value goes through shell_quote(),
/// so nothing in a model path, job name or Megatron argument is ever read
/// by the shell as code. Scheduler options (partition, nodes, time) are not
/// written as #SBATCH lines, where a newline in a value would open a new
/// directive: the Slurm client passes them as sbatch arguments or REST
/// fields. Throws input_error for an environment name that is not a shell
/// identifier or a value with a NUL byte.
std::string batch_script(const std::vector<std::string>& argv, const std::string& workdir,
                         const std::map<std::string, std::string>& env = {});

} // namespace paratune
