#include "adapters/trial_launch/trial_env.hpp"

#include <set>

#include "adapters/process/process_environment.hpp"
#include "core/secret_env.hpp"
#include "messages/conversions.hpp"

namespace paratune {

std::vector<std::string> trial_secret_names(const wire::session_opened& job) {
  std::set<std::string> names(job.secret_env.begin(), job.secret_env.end());
  names.insert(always_secret_env().begin(), always_secret_env().end());
  return {names.begin(), names.end()};
}

env_list trial_env_of(const wire::session_opened& job, const wire::pool_wire* pool,
                      const wire::proposal& p) {
  const auto config = wire::from_wire(p.config);
  trial_env_sources from;
  from.inherited = environment_of_this_process();
  if (pool)
    from.pool = pool->env;
  from.job = job.env;
  const bool simulated = !pool || pool->kind == pool_kind::simulated;
  from.framework = framework_environment(config.tp, config.cp, simulated, from.inherited);
  const auto secrets = trial_secret_names(job);
  from.secrets.insert(secrets.begin(), secrets.end());
  return trial_environment(from);
}

} // namespace paratune
