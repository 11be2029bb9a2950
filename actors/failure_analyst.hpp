#pragma once

#include <caf/fwd.hpp>

#include "actors/agent_io.hpp"

namespace paratune {

struct failure_analyst_state {
  static inline const char* name = "failure_analyst";
};

/// The Failure Analysis agent. Subscribes to "trial."; for every failed
/// trial_result it diagnoses the first error (parameter-related or not,
/// which parameters, how sure) and records a failure_diagnosis on
/// "failure.<session>.<trial>". The reasoner turns confident diagnoses into
/// hard constraints (known failures) and retries the unrelated ones once.
caf::behavior failure_analyst(caf::stateful_actor<failure_analyst_state>* self, agent_deps deps);

} // namespace paratune
