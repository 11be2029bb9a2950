#include "actors/proposal_agent.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/knowledge.hpp"
#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/diagnosis/proposal_engine.hpp"
#include "messages/codec.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "storage/knowledge_index.hpp"

namespace paratune {

namespace {

// The request that started the session: the experiment the proposals are for.
const wire::envelope* find_request(const std::vector<wire::envelope>& history) {
  return find_first(history, wire::type_name<wire::diagnose_request>());
}

void propose_and_publish(caf::event_based_actor* self, const agent_deps& deps,
                         const std::string& session, const wire::diagnosis& d,
                         const std::vector<wire::envelope>& history,
                         const std::vector<past_optimization>& ledger,
                         const std::shared_ptr<const knowledge_index>& knowledge) {
  const auto* req_env = find_request(history);
  if (!req_env) {
    spdlog::warn("proposal_agent: session {} has no diagnose_request", session);
    return;
  }
  try {
    const auto req = wire::body_of<wire::diagnose_request>(*req_env);
    const auto exp = parse_experiment(req.experiment_yaml, req.experiment_name);
    const auto report = wire::from_wire(d);
    proposal_context ctx;
    ctx.experiment = &exp;
    ctx.report = &report;
    ctx.measured_step_ms = d.measured_step_ms;
    ctx.history = &ledger;
    if (knowledge)
      ctx.knowledge = search_of(*knowledge);
    const auto set = wire::to_wire(propose(ctx));
    store_and_publish(self, deps, topics::proposals(session),
                      wire::make_envelope(session, 0, set));
  } catch (const std::exception& e) {
    spdlog::error("proposal_agent: session {}: {}", session, e.what());
  }
}

} // namespace

caf::behavior proposal_agent(caf::stateful_actor<proposal_agent_state>* self, agent_deps deps,
                             std::shared_ptr<const knowledge_index> knowledge) {
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      auto e = decode_bus(self->name(), topic, payload);
      if (!e || e->type != wire::type_name<wire::diagnosis>())
        return;
      wire::diagnosis d;
      try {
        d = wire::body_of<wire::diagnosis>(*e);
      } catch (const wire::decode_error& err) {
        spdlog::warn("proposal_agent: {}", err.what());
        return;
      }
      if (!d.error.empty())
        return;  // nothing was diagnosed; the requester already has the reason
      const auto session = e->session;
      with_history(self, deps, session, [=](std::vector<wire::envelope> history) {
        with_history(self, deps, wire::optimization_ledger,
                     [=](std::vector<wire::envelope> ledger) {
                       propose_and_publish(self, deps, session, d, history,
                                           wire::optimizations_of(ledger), knowledge);
                     });
      });
    },
  };
}

} // namespace paratune
