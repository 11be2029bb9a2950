#pragma once

#include <optional>

#include <caf/fwd.hpp>

#include "actors/agent.hpp"

namespace paratune {

/// The Strategy Generation agent. Subscribes to "report."; turns the best
/// ranked suggestion into a complete configuration, checks once more that it
/// repeats no past run, renders its launch command (simulator and
/// Megatron-LM arguments) and publishes a proposal on "proposal.<session>".
/// When the job's initial configuration was refused by the guards it records
/// that trial as skipped instead (no GPU time spent). Idempotent: a report
/// for a trial that already has a proposal republishes the stored one.
struct generator_state : agent_state {
  explicit generator_state(caf::event_based_actor* self);

  void generate(const std::string& session, const wire::analysis_report& report,
                const std::vector<wire::envelope>& history);

  static inline const char* name = "strategy_generator";
};

caf::behavior strategy_generator(caf::stateful_actor<generator_state>* self, agent_deps deps);

} // namespace paratune
