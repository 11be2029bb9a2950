#include "actors/proposal_agent.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/knowledge.hpp"
#include "actors/llm_exchanges.hpp"
#include "adapters/llm/model_chat.hpp"
#include "core/llm/diagnosis_decision.hpp"
#include "messages/conversions.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "adapters/diagnosis/diagnosis_run.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "storage/knowledge_index.hpp"

namespace paratune {

proposal_agent_state::proposal_agent_state(proposal_agent_actor::pointer self)
  : basic_agent_state(self) {
  on<wire::diagnosis>([this](const wire::envelope& e, wire::diagnosis d) {
    if (!d.error.empty())
      return; // nothing was diagnosed; the requester already has the reason
    const auto session = e.session;
    with_history(session, [this, session, d](std::vector<wire::envelope> history) {
      with_history(wire::optimization_ledger, [=, this](std::vector<wire::envelope> ledger) {
        propose_for(session, d, history, ledger);
      });
    });
  });
}

void proposal_agent_state::propose_for(const std::string& session, const wire::diagnosis& d,
                                       const std::vector<wire::envelope>& history,
                                       const std::vector<wire::envelope>& ledger) {
  // The request that started the session: the experiment the proposals are for.
  const auto* request = find_first<wire::diagnose_request>(history);
  if (!request) {
    spdlog::warn("proposal_agent: session {} has no diagnose_request", session);
    return;
  }
  const auto req = wire::body_of<wire::diagnose_request>(*request);
  const auto exp = parse_experiment(req.experiment_yaml, req.experiment_name);
  const auto report = wire::from_wire(d);
  const auto past = wire::optimizations_of(ledger);
  const auto search = knowledge ? search_of(*knowledge) : knowledge_search{};
  auto built = paratune::propose_for(exp, report, d.measured_step_ms, past, search);
  // The model, when the request names one, proposes a mesh of its own,
  // screened as the built-in candidates are.
  const auto settings = wire::from_wire(req.reasoner);
  if (settings.mode != reasoner_mode::builtin) {
    proposal_context ctx;
    ctx.experiment = &exp;
    ctx.report = &report;
    ctx.measured_step_ms = d.measured_step_ms;
    ctx.history = &past;
    ctx.knowledge = search;
    auto decided = propose_with_llm(settings.mode, req.proposal_prompt, ctx, std::move(built),
                                    model_chat(settings));
    if (!decided.fallback.empty())
      spdlog::warn("proposal_agent: session {}: {}", session, decided.fallback);
    for (auto& x : exchanges_of(decided.turns, reasoning_agent::diagnosis, settings.mode, 0, 0,
                                decided.from_model))
      store(wire::make_envelope(session, 0, x));
    built = std::move(decided.set);
  }
  const auto set = wire::to_wire(built);
  store_and_publish(topics::proposals(session), wire::make_envelope(session, 0, set));
}

proposal_agent_actor::behavior_type
proposal_agent(proposal_agent_actor::stateful_pointer<proposal_agent_state> self, agent_deps deps,
               std::shared_ptr<const knowledge_index> knowledge) {
  self->state.knowledge = std::move(knowledge);
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
