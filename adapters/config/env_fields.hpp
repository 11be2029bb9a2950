#pragma once

#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace paratune {

/// A job's or a pool's `env:` (`{NCCL_DEBUG: WARN, HF_HOME: /scratch/hf}`):
/// variables set in each trial's environment. Throws input_error
/// "WHERE: field 'env': ..." for a node that is not a mapping of single
/// values or a name that is not a POSIX environment variable name.
std::map<std::string, std::string> read_env_field(const YAML::Node& node, const std::string& where);

/// A job's or the daemon config's `secret_env:` (`[HF_TOKEN, WANDB_API_KEY]`):
/// variables of paratune's environment never passed to a trial, their
/// values redacted wherever they show. Throws input_error naming a bad name.
std::vector<std::string> read_secret_env_field(const YAML::Node& node, const std::string& where);

} // namespace paratune
