#pragma once

#include <string>

#include "adapters/slurm/slurm_result.hpp"
#include "core/trial_dir_access.hpp"

namespace paratune {

/// How a Slurm pool submits, as far as whose jobs they become matters.
struct slurm_submitter {
  bool via_rest = false;  ///< slurmrestd, else sbatch
  std::string url;        ///< slurmrestd: "unix:/path" or "http(s)://host:port"
  std::string user;       ///< slurmrestd: the pool's `user:` (X-SLURM-USER-NAME, the JWT's)
};

/// The user a pool's batch jobs run as, looked up on this machine (the
/// cluster shares its users with the login node):
/// - sbatch: this process's user, who runs sbatch;
/// - slurmrestd with `user:`: that user (the JWT's, X-SLURM-USER-NAME);
/// - slurmrestd on a Unix socket without one: rest_auth/local submits as
///   slurmrestd's own user, the socket's owner; a slurmrestd running as root
///   takes its caller's user instead (tools/slurm-local: jobs run as
///   `slurmrest`, measured);
/// - slurmrestd over TCP without `user:`: this process's user, as the JWT
///   is assumed to be its own.
/// An error names the user this machine does not know.
slurm_result<unix_user> slurm_job_user(const slurm_submitter& s);

} // namespace paratune
