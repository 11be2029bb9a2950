#pragma once

#include <map>
#include <optional>
#include <string>

#include <caf/fwd.hpp>

#include "actors/agent.hpp"

namespace paratune {

/// The Strategy Generation agent. Subscribes to "report."; fills the free
/// slots of the job's pools (at most the slots the request asked for):
/// first a failed trial due a retry, on another pool than the one it failed
/// on, then the best ranked suggestions that are not running already. Each
/// becomes a proposal on "proposal.<session>" with its trial number, its
/// pool and its launch command (paratune-sim for a simulated pool, the
/// pool's launch template otherwise). A request that launches nothing (no
/// free slot, or nothing new and valid: exhausted) is answered by a proposal
/// for trial 0. When the job's initial configuration was refused by the
/// guards it records trial 1 as skipped instead (no GPU time spent).
/// Idempotent: a report for a request already answered republishes the
/// stored answer; a report for an older request is ignored.
struct generator_state : basic_agent_state<strategy_generator_actor> {
  explicit generator_state(strategy_generator_actor::pointer self);

  void generate(const std::string& session, const wire::analysis_report& report,
                const session_ledger& ledger);
  /// Publishes the stored proposals answering `request`; false when none.
  bool republish_answer(const std::string& session, int request, const session_ledger& ledger);
  /// Renders `p`'s command for its pool and records it; a command that does
  /// not render records the trial as failed (a launcher error) instead.
  void publish_proposal(const std::string& session, const wire::session_opened& job,
                        wire::proposal& p);

  /// The paused pools last logged per session, while any is paused: a pause
  /// is logged when it starts, changes or ends, not at every generation.
  std::map<std::string, std::string> logged_pauses;

  static inline const char* name = "strategy_generator";
};

strategy_generator_actor::behavior_type
strategy_generator(strategy_generator_actor::stateful_pointer<generator_state> self,
                   agent_deps deps);

} // namespace paratune
