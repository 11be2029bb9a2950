#pragma once

#include <map>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "actors/agent_io.hpp"

namespace paratune {

struct running_trial; // defined in validator.cpp

struct validator_state {
  /// Trials now running, by "<session>/<trial>".
  std::map<std::string, std::shared_ptr<running_trial>> running;
  static inline const char* name = "validator";
};

/// The Strategy Validation agent. Subscribes to "proposal."; for each new
/// proposal it records trial_started, launches the run as a child process
/// (fork and exec of the proposal's argv), parses its output line by line
/// with the Megatron log parser, publishes each iteration on
/// "telemetry.<session>.<trial>", and when the process ends scores the
/// trial (warm-up skipped) and records its trial_result.
caf::behavior validator(caf::stateful_actor<validator_state>* self, agent_deps deps);

} // namespace paratune
