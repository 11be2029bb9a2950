#include "adapters/config/env_fields.hpp"

#include "core/input_error.hpp"
#include "core/text.hpp"
#include "core/trial_environment.hpp"

namespace paratune {

std::map<std::string, std::string> read_env_field(const YAML::Node& node,
                                                  const std::string& where) {
  const auto at = where + ": field 'env'";
  if (!node.IsMap())
    throw input_error(at + ": expected a mapping of NAME: value, e.g. {NCCL_DEBUG: WARN}");
  std::map<std::string, std::string> env;
  for (const auto& kv : node) {
    const auto name = kv.first.as<std::string>();
    if (!kv.second.IsScalar())
      throw input_error(at + ": the value of '" + name + "' must be a single value");
    env[name] = kv.second.Scalar();
  }
  // Names and values only here; a secret's name is refused once the job's
  // secrets are known (job_env_error).
  if (auto e = env_map_error(env, at, {}))
    throw input_error(*e);
  return env;
}

std::vector<std::string> read_secret_env_field(const YAML::Node& node,
                                               const std::string& where) {
  const auto at = where + ": field 'secret_env'";
  if (!node.IsSequence())
    throw input_error(at + ": expected a list of variable names, e.g. [HF_TOKEN]");
  std::vector<std::string> names;
  for (const auto& n : node) {
    const auto name = n.IsScalar() ? n.Scalar() : YAML::Dump(n);
    if (!n.IsScalar() || !is_identifier(name))
      throw input_error(at + ": '" + name
                        + "' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
    names.push_back(name);
  }
  return names;
}

} // namespace paratune
