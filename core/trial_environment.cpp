#include "core/trial_environment.hpp"

#include "core/text.hpp"

namespace paratune {

bool is_base_env_name(std::string_view name) {
  static const std::set<std::string_view> names{"PATH", "HOME", "USER", "LOGNAME",
                                                "LANG", "TZ",   "TMPDIR"};
  // LC_ALL, LC_CTYPE, LC_NUMERIC, ...: the locale, which Python reads.
  return names.count(name) > 0 || (name.size() > 3 && name.substr(0, 3) == "LC_");
}

env_list framework_environment(int tp, int cp, bool simulated, const env_list& inherited) {
  env_list env{{"PYTHONUNBUFFERED", "1"}};
  if (tp > 1 || cp > 1)
    env.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", "1");
  if (simulated)
    for (const auto& [name, value] : inherited)
      if (name == "PARATUNE_CONFIGS" || name == "PARATUNE_DATA")
        env.emplace_back(name, value);
  return env;
}

env_list trial_environment(const trial_env_sources& from) {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : from.inherited)
    if (is_base_env_name(name))
      env[name] = value;
  for (const auto& [name, value] : from.pool)
    env[name] = value;
  for (const auto& [name, value] : from.job)
    env[name] = value;
  for (const auto& [name, value] : from.framework)
    env[name] = value;
  for (const auto& s : from.secrets)
    env.erase(s);
  return {env.begin(), env.end()};
}

std::optional<std::string> env_map_error(const std::map<std::string, std::string>& env,
                                         const std::string& where,
                                         const std::set<std::string>& secrets) {
  for (const auto& [name, value] : env) {
    if (!is_identifier(name))
      return where + ": '" + name
             + "' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)";
    if (value.find('\0') != std::string::npos)
      return where + ": the value of " + name + " holds a NUL byte";
    if (secrets.count(name))
      return where + ": " + name
             + " is a secret (SLURM_JWT, a reasoner's api_key_env, a pool's token_env or "
               "secret_env) and is never passed to a trial";
  }
  return std::nullopt;
}

} // namespace paratune
