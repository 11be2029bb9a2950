#pragma once

#include <string>
#include <vector>

#include "core/trial_environment.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// The variables of this process no trial of the session sees: the
/// session's secrets (names only are stored) and the ones paratune always
/// treats as secret (SLURM_JWT, for sessions stored before they were).
std::vector<std::string> trial_secret_names(const wire::session_opened& job);

/// A trial's whole environment (core/trial_environment.hpp), chosen from
/// this process's, never inherited whole, for a child process and a Slurm
/// job alike. `pool` may be null (a simulated trial).
env_list trial_env_of(const wire::session_opened& job, const wire::pool_wire* pool,
                      const wire::proposal& p);

} // namespace paratune
