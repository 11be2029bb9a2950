#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/job_spec.hpp"

namespace paratune {

/// Variables that are secrets whatever the configuration says: SLURM_JWT,
/// the Slurm token, which authenticates as the daemon's user.
const std::vector<std::string>& always_secret_env();

/// The secrets of paratune's own process: always_secret_env(), every
/// agent's api_key_env of `reasoner` and `also` (the daemon config's
/// `secret_env:`). What the daemon's log redacts.
std::set<std::string> process_secret_env_names(const agent_reasoners& reasoner,
                                               const std::vector<std::string>& also);

/// The names of the variables a job's trials must never see and whose
/// values are redacted wherever they show: always_secret_env(), the job's
/// `secret_env:`, every agent's api_key_env (the job's reasoner, else
/// `default_reasoner`), each slurmrestd pool's token_env, and `also` (the
/// daemon config's `secret_env:`).
std::set<std::string> secret_env_names(const job_spec& job, const agent_reasoners& default_reasoner,
                                       const std::vector<std::string>& also);

/// Why the job's `env:` or a pool's cannot be used (env_map_error), naming
/// where ("field 'env'", "pool 'a100': field 'env'"), or nothing.
std::optional<std::string> job_env_error(const job_spec& job, const std::set<std::string>& secrets);

} // namespace paratune
