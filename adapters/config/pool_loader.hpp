#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/pool_spec.hpp"

namespace paratune {

/// Reads a job file's `pools:` list. Each pool is checked on its own (a
/// known kind, a capacity in 1..1024, a launch template that parses, a
/// partition and an interface for Slurm, an address and credentials for
/// slurmrestd) and against the others (unique names). Throws input_error
/// naming the file, the pool and the field.
std::vector<pool_spec> read_pools(const YAML::Node& node, const std::string& where);

} // namespace paratune
