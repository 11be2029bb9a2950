#include "adapters/trial_launch/trial_env.hpp"

#include <set>
#include <stdexcept>

#include "adapters/process/process_environment.hpp"
#include "core/secret_env.hpp"

namespace paratune {

std::vector<std::string> trial_secret_names(const std::vector<std::string>& session_secrets) {
  std::set<std::string> names(session_secrets.begin(), session_secrets.end());
  names.insert(always_secret_env().begin(), always_secret_env().end());
  return {names.begin(), names.end()};
}

std::vector<std::string> trial_secret_names(const wire::session_opened& job) {
  return trial_secret_names(job.secret_env);
}

env_list trial_env_for(const trial_env_request& r) {
  if (!r.fw)
    throw std::logic_error("a trial's environment needs its framework");
  trial_env_sources from;
  from.inherited = environment_of_this_process();
  from.pool = r.pool_env;
  from.job = r.job_env;
  from.framework = r.fw->environment(r.config, r.simulated, from.inherited);
  from.secrets.insert(r.secrets.begin(), r.secrets.end());
  return trial_environment(from);
}

env_list trial_env_of(const wire::session_opened& job, const wire::pool_wire* pool,
                      const wire::proposal& p) {
  trial_env_request r;
  r.fw = framework_named(job.framework);
  if (pool)
    r.pool_env = pool->env;
  r.job_env = job.env;
  r.secrets = trial_secret_names(job);
  r.config = p.config;
  r.simulated = !pool || pool->kind == pool_kind::simulated;
  return trial_env_for(r);
}

} // namespace paratune
