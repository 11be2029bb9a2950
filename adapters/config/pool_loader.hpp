#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/launch/launch_template.hpp"
#include "core/pool_spec.hpp"

namespace paratune {

/// Reads a job file's `pools:` list. Each pool is checked on its own (a
/// known kind, a capacity in 1..1024, a launch template that parses, a
/// partition and an interface for Slurm, an address and credentials for
/// slurmrestd) and against the others (unique names). Throws input_error
/// naming the file, the pool and the field.
std::vector<pool_spec> read_pools(const YAML::Node& node, const std::string& where);

/// Refuses a pool whose launch template names the other framework's
/// arguments ({maxtext_args} in a Megatron-LM job, {megatron_args} in a
/// MaxText experiment): `own` is the job's framework's placeholder. Throws
/// input_error naming the file, the pool and the one to use.
void refuse_other_framework_args(const std::vector<pool_spec>& pools, launch_field own,
                                 const std::string& where);

} // namespace paratune
