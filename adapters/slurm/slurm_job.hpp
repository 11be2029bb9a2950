#pragma once

#include "adapters/slurm/slurm_error.hpp"
#include "adapters/slurm/slurm_state.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace paratune {

/// Slurm's job id (a 32-bit number in Slurm).
using slurm_job_id = std::uint32_t;

/// What paratune submits: one batch job for one trial.
struct slurm_job_request {
  std::string name;       ///< --job-name; any text without control characters
  std::string partition;  ///< the hardware pool, e.g. "h100"
  int nodes = 1;
  int gpus_per_node = 0;      ///< 0: ask for no GPUs
  int time_limit_minutes = 0; ///< 0: the partition's limit
  int tasks_per_node = 0;     ///< --ntasks-per-node; 0: Slurm's default (one task in all)
  std::string account;        ///< --account; empty: the user's default
  std::string qos;            ///< --qos
  std::string constraint;     ///< --constraint, a node feature expression
  std::string gres;           ///< --gres, e.g. "gpu:8"
  bool exclusive = false;     ///< --exclusive: no other job shares the nodes
  std::string working_directory;  ///< absolute path on the compute node
  std::string output_path;        ///< absolute; stdout and stderr; "%j" is the job id
  /// The job's whole environment (nothing of the submitter's leaks in):
  /// include PATH. Names are shell identifiers.
  std::vector<std::pair<std::string, std::string>> environment;
  std::string script;  ///< the batch script, starting with "#!"
};

/// Checks a request before anything is sent: every value a user or a
/// configuration file supplied. Returns an invalid_request error naming the
/// field, or nothing.
std::optional<slurm_error> check_request(const slurm_job_request& job);

/// What paratune reads back about a job.
struct slurm_job_status {
  slurm_job_id id = 0;
  slurm_state state = slurm_state::unknown;
  std::string raw_state;  ///< Slurm's own word, e.g. "OUT_OF_MEMORY"
  /// The batch script's exit status once the job ended by itself; for a job
  /// killed by a signal, `signal` is set instead (e.g. 15 when cancelled).
  std::optional<int> exit_code;
  int signal = 0;
  std::string reason;     ///< why it waits or failed ("Priority", "NonZeroExitCode"); "None"
  std::string nodes;      ///< the node list, empty while pending
  std::string partition;
  std::string name;
};

} // namespace paratune
