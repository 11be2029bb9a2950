#pragma once

#include <string>

#include "core/job_spec.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// What a session is started from, besides the job itself.
struct session_source {
  std::string job_text;   ///< the job file's text, stored for reproducibility
  std::string pool_dir;   ///< the pool's directory; trials' directories go under it
  int trials = 0;         ///< a budget that overrides the job's; 0 keeps it
  /// The reasoners of a job that names none (the daemon config's `reasoner:`).
  agent_reasoners default_reasoner = {};
  /// The daemon config's `secret_env:`: more names no trial may see.
  std::vector<std::string> secret_env = {};
};

/// The session_opened record of a GPU tuning job: the job in wire form,
/// its pools, where the simulator and the relay program are.
wire::session_opened session_record(const job_spec& job, const session_source& src);

/// Where a job's relays publish their lines, for `tune`: the first relay
/// pool's relay_bind, else a free port on the loopback; empty when no pool
/// relays. A relay ingress binds it (adapters/relay/relay_ingress.hpp); a
/// daemon has its own (daemon_config's relay_ingress).
std::string relay_ingress_for(const job_spec& job);

/// A bound endpoint others can connect to: a wildcard host ("0.0.0.0",
/// "*") becomes this machine's name.
std::string reachable(const std::string& bound);

} // namespace paratune
