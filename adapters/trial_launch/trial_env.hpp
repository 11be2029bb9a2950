#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/trial_environment.hpp"
#include "frameworks/framework.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// The variables of this process no trial of the session sees: the
/// session's secrets (names only are stored) and the ones paratune always
/// treats as secret (SLURM_JWT, for sessions stored before they were).
std::vector<std::string> trial_secret_names(const std::vector<std::string>& session_secrets);
std::vector<std::string> trial_secret_names(const wire::session_opened& job);

/// What a trial's environment is chosen from, whatever its framework.
struct trial_env_request {
  const framework* fw = nullptr;                ///< the variables its trainer needs
  std::map<std::string, std::string> pool_env;  ///< the pool's `env:`
  std::map<std::string, std::string> job_env;   ///< the job's `env:`
  std::vector<std::string> secrets;             ///< trial_secret_names()
  framework_config config;                      ///< the trial's configuration
  bool simulated = true;                        ///< on a simulated pool
};

/// A trial's whole environment (core/trial_environment.hpp), chosen from
/// this process's, never inherited whole, for a child process and a Slurm
/// job alike, for every framework: the one place it is chosen.
env_list trial_env_for(const trial_env_request& r);

/// trial_env_for() for a GPU job's trial. `pool` may be null (a simulated trial).
env_list trial_env_of(const wire::session_opened& job, const wire::pool_wire* pool,
                      const wire::proposal& p);

} // namespace paratune
