#include "actors/diagnosis_agents.hpp"

#include <caf/all.hpp>

#include "actors/analyzer.hpp"
#include "actors/bus_bridge.hpp"
#include "actors/proposal_agent.hpp"
#include "actors/runtime.hpp"
#include "actors/knowledge.hpp"
#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/history_seed.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "storage/knowledge_index.hpp"

namespace paratune {

namespace {

// Seeds an empty history ledger through the pool actor (the single writer).
caf::expected<void> seed_ledger(caf::actor_system& sys, runtime& rt, const std::string& dir) {
  auto ledger = rt.history(wire::optimization_ledger);
  if (!ledger)
    return ledger.error();
  if (!wire::optimizations_of(*ledger).empty() || dir.empty())
    return {};
  std::vector<past_optimization> records;
  try {
    records = load_optimizations_dir(dir);
  } catch (const std::exception& e) {
    return caf::make_error(ec::bad_input, e.what());
  }
  caf::scoped_actor self{sys};
  caf::expected<void> out{};
  for (const auto& r : records) {
    auto e = wire::make_envelope(wire::optimization_ledger, 0, wire::to_wire(r));
    self->request(rt.deps().pool, std::chrono::seconds(30), append_atom_v, e)
      .receive([](uint64_t) {}, [&](caf::error& err) { out = std::move(err); });
    if (!out)
      break;
  }
  return out;
}

} // namespace

caf::expected<void> start_diagnosis_agents(caf::actor_system& sys, runtime& rt,
                                           const diagnosis_agent_options& opts) {
  std::shared_ptr<const knowledge_index> knowledge;
  if (!opts.knowledge_index_dir.empty()) {
    auto index = open_knowledge(opts.knowledge_index_dir, opts.knowledge_docs_dir);
    if (!index)
      return index.error();
    knowledge = std::move(*index);
  }
  if (auto seeded = seed_ledger(sys, rt, opts.optimizations_dir); !seeded)
    return seeded.error();
  const auto deps = rt.deps();
  // Both block: the Analyzer on profile reads and servers, the Proposal
  // agent on RocksDB scans and model sweeps.
  auto analyst = sys.spawn<caf::detached>(analyzer, deps);
  auto proposer = sys.spawn<caf::detached>(proposal_agent, deps, knowledge);
  rt.bridge().subscribe(topics::diagnose_prefix, analyst);
  rt.bridge().subscribe(topics::diagnosis_prefix, proposer);
  rt.adopt_agent(analyst, "analyzer");
  rt.adopt_agent(proposer, "proposal_agent");
  if (!rt.bridge().await_subscribed(sys, {topics::diagnose_prefix, topics::diagnosis_prefix},
                                    std::chrono::seconds(10)))
    return caf::make_error(ec::bus_failure, "the diagnosis agents' topics never reached the bus");
  return {};
}

caf::expected<diagnosis_answer> request_diagnosis(caf::actor_system& sys, runtime& rt,
                                                  const std::string& session,
                                                  const wire::diagnose_request& req,
                                                  std::chrono::seconds timeout) {
  caf::scoped_actor self{sys};
  auto me = caf::actor_cast<bus_agent_actor>(self); // receive()s the answers itself
  const std::vector<std::string> topics{topics::diagnosis(session), topics::proposals(session)};
  std::vector<int> subscriptions;
  for (const auto& t : topics)
    subscriptions.push_back(rt.bridge().subscribe(t, me));
  auto unsubscribe = [&] {
    for (int id : subscriptions)
      rt.bridge().unsubscribe(id);
  };
  if (!rt.bridge().await_subscribed(sys, topics, std::chrono::seconds(10))) {
    unsubscribe();
    return caf::make_error(ec::bus_failure, "the diagnosis topics never reached the bus");
  }
  auto e = wire::make_envelope(session, 0, req);
  caf::error stored;
  self->request(rt.deps().pool, std::chrono::seconds(30), append_atom_v, e)
    .receive([&](uint64_t seq) { e.seq = seq; }, [&](caf::error& err) { stored = err; });
  if (stored) {
    unsubscribe();
    return stored;
  }
  self->send(rt.deps().egress, publish_atom_v, topics::diagnose(session), wire::pack(e));
  std::optional<diagnosis_answer> answer;
  diagnosis_answer partial;
  bool have_diagnosis = false, have_proposals = false, timed_out = false;
  while (!answer && !timed_out)
    self->receive(
      [&](bus_atom, const std::string&, const std::string& payload) {
        auto env = wire::decode_envelope(payload);
        if (env.session != session)
          return; // a probe
        if (env.type == wire::type_name<wire::diagnosis>()) {
          partial.diagnosis = wire::body_of<wire::diagnosis>(env);
          have_diagnosis = true;
        } else if (env.type == wire::type_name<wire::proposal_set>()) {
          partial.proposals = wire::body_of<wire::proposal_set>(env);
          have_proposals = true;
        }
        if (have_diagnosis && (have_proposals || !partial.diagnosis.error.empty()))
          answer = partial;
      },
      caf::after(timeout) >> [&] { timed_out = true; });
  unsubscribe();
  if (!answer)
    return caf::make_error(ec::agent_failure, "no diagnosis of session " + session + " within "
                                                + std::to_string(timeout.count()) + " s");
  return *answer;
}

} // namespace paratune
