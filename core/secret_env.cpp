#include "core/secret_env.hpp"

#include "core/trial_environment.hpp"

namespace paratune {

namespace {

void add_api_key_env(const agent_reasoners& r, std::set<std::string>& names) {
  if (!r.shared.api_key_env.empty())
    names.insert(r.shared.api_key_env);
  for (const auto& [agent, settings] : r.overrides)
    if (!settings.api_key_env.empty())
      names.insert(settings.api_key_env);
}

} // namespace

const std::vector<std::string>& always_secret_env() {
  static const std::vector<std::string> names{"SLURM_JWT"};
  return names;
}

std::set<std::string> process_secret_env_names(const agent_reasoners& reasoner,
                                               const std::vector<std::string>& also) {
  std::set<std::string> names(always_secret_env().begin(), always_secret_env().end());
  names.insert(also.begin(), also.end());
  add_api_key_env(reasoner, names);
  return names;
}

std::set<std::string> secret_env_names(const job_spec& job, const agent_reasoners& default_reasoner,
                                       const std::vector<std::string>& also) {
  // The daemon's key stays in its environment even for a job that brings
  // a reasoner of its own: both are secrets.
  auto names = process_secret_env_names(default_reasoner, also);
  names.insert(job.secret_env.begin(), job.secret_env.end());
  if (job.reasoner)
    add_api_key_env(*job.reasoner, names);
  for (const auto& p : job.pools)
    if (!p.token_env.empty())
      names.insert(p.token_env);
  return names;
}

std::optional<std::string> job_env_error(const job_spec& job, const std::set<std::string>& secrets) {
  if (auto e = env_map_error(job.env, "field 'env'", secrets))
    return e;
  for (const auto& p : job.pools)
    if (auto e = env_map_error(p.env, "pool '" + p.name + "': field 'env'", secrets))
      return e;
  return std::nullopt;
}

} // namespace paratune
