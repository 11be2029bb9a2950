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
struct proposal_agent_state : agent_state {
  explicit proposal_agent_state(caf::event_based_actor* self);

  void propose_for(const std::string& session, const wire::diagnosis& d,
                   const std::vector<wire::envelope>& history,
                   const std::vector<wire::envelope>& ledger);

  std::shared_ptr<const knowledge_index> knowledge;
  static inline const char* name = "proposal_agent";
};

caf::behavior proposal_agent(caf::stateful_actor<proposal_agent_state>* self, agent_deps deps,
                             std::shared_ptr<const knowledge_index> knowledge);

} // namespace paratune
