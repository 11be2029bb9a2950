#pragma once

#include <memory>

#include <caf/fwd.hpp>

#include "actors/agent.hpp"

namespace paratune {

class knowledge_index;

/// ASAP's Proposal agent. Subscribes to "diagnosis.": for each diagnosis
/// without an error it reads the session's diagnose_request (the
/// experiment) from the pool, the past optimizations from the pool's
/// history ledger, and the principles BM25 finds in `knowledge` (may be
/// null: no knowledge citations), then stores and publishes three ranked
/// proposals as a proposal_set on "proposals.<session>".
struct proposal_agent_state : basic_agent_state<proposal_agent_actor> {
  explicit proposal_agent_state(proposal_agent_actor::pointer self);

  void propose_for(const std::string& session, const wire::diagnosis& d,
                   const std::vector<wire::envelope>& history,
                   const std::vector<wire::envelope>& ledger);

  std::shared_ptr<const knowledge_index> knowledge;
  static inline const char* name = "proposal_agent";
};

proposal_agent_actor::behavior_type
proposal_agent(proposal_agent_actor::stateful_pointer<proposal_agent_state> self, agent_deps deps,
               std::shared_ptr<const knowledge_index> knowledge);

} // namespace paratune
