#pragma once

#include "adapters/slurm/slurm_job.hpp"
#include "adapters/slurm/slurm_result.hpp"

#include <string>

namespace paratune {

/// The controller's answer to a ping.
struct slurm_ping {
  std::string controller;  ///< host name of the answering slurmctld
  bool up = false;
};

/// Submits, watches and cancels batch jobs on one Slurm cluster. The two
/// implementations reach the same controller by its command-line tools
/// (slurm_cli_client) or over slurmrestd (slurmrestd_client). Every call
/// blocks until the scheduler answered or the client's timeout ran out, and
/// reports failure as a slurm_error, never by throwing.
class slurm_client {
 public:
  virtual ~slurm_client() = default;

  virtual slurm_result<slurm_job_id> submit(const slurm_job_request& job) = 0;
  /// The job's state while the controller remembers it (MinJobAge after it
  /// ended; without accounting it is `not_found` after that).
  virtual slurm_result<slurm_job_status> state(slurm_job_id id) = 0;
  /// Asks Slurm to cancel; the state turns `cancelled` shortly after.
  virtual slurm_result<> cancel(slurm_job_id id) = 0;
  /// Whether the controller answers; `unreachable` when the pool is down.
  virtual slurm_result<slurm_ping> ping() = 0;
};

} // namespace paratune
