#pragma once

#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/trial_environment.hpp"

namespace paratune {

/// A Megatron-LM flag a trial's launch adds only so that paratune can
/// measure a short run, and how many values follow it.
struct measuring_flag {
  std::string_view name;
  int values = 0;
};

/// The flags of render_megatron_args() that belong to the tuning run, not
/// to the configuration: --train-iters (a trial runs a dozen iterations),
/// --log-interval (every iteration is logged, so each can be scored) and
/// --log-throughput (the TFLOP/s the score is read from).
std::span<const measuring_flag> measuring_flags();

/// A trial's arguments as a production run takes them: without the
/// `measuring` flags (Megatron-LM's by default) and their values,
/// everything else in its order. What `paratune export` prints: pasted into
/// a real job, the trial's --train-iters 12 would train twelve iterations
/// and stop.
std::vector<std::string> production_args(const std::vector<std::string>& trial_args,
                                         std::span<const measuring_flag> measuring =
                                           measuring_flags());

/// The environment a production run of the configuration needs, sorted by
/// name: the pool's `env:`, then the job's (each replacing the one before),
/// then what the framework needs for the configuration (`framework`, as
/// its environment() gives it: Megatron-LM's CUDA_DEVICE_MAX_CONNECTIONS=1
/// with tensor or context parallelism). Left out: the variables a trial takes from
/// paratune's own environment (PATH, HOME: the user's machine has its own),
/// PYTHONUNBUFFERED (there only so that paratune reads the output as it
/// comes), the simulator's catalog paths, and every name in `secrets`.
env_list production_environment(const env_list& framework,
                                const std::map<std::string, std::string>& pool,
                                const std::map<std::string, std::string>& job,
                                const std::set<std::string>& secrets);

} // namespace paratune
