#pragma once

#include <caf/fwd.hpp>

#include "actors/agent.hpp"

namespace paratune {

/// The Failure Analysis agent. Subscribes to "trial."; for every failed
/// trial_result it diagnoses the first error (parameter-related or not,
/// which parameters, how sure) and records a failure_diagnosis on
/// "failure.<session>.<trial>". The reasoner turns confident diagnoses into
/// hard constraints (known failures) and retries the unrelated ones once.
/// Where the rules run out and the session's `reasoner:` puts a model
/// behind failure analysis, the model reads the log (core/llm/
/// failure_decision); its asks are stored as llm_exchange records. It runs
/// detached, as a model's answer may take seconds.
struct failure_analyst_state : basic_agent_state<failure_analyst_actor> {
  explicit failure_analyst_state(failure_analyst_actor::pointer self);

  void diagnose(const std::string& session, const wire::trial_result& r,
                const session_ledger* ledger);

  static inline const char* name = "failure_analyst";
};

failure_analyst_actor::behavior_type
failure_analyst(failure_analyst_actor::stateful_pointer<failure_analyst_state> self,
                agent_deps deps);

} // namespace paratune
