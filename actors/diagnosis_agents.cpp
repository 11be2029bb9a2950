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

// Waits until the bus delivers the agents' topic prefixes, so that a
// request published right after start is not lost to the slow joiner.
bool await_subscriptions(caf::actor_system& sys, runtime& rt) {
  caf::scoped_actor self{sys};
  return live_subscriptions{rt.bridge(), self, {topics::diagnose_prefix, topics::diagnosis_prefix},
                            std::chrono::seconds(10)}
    .live();
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
  if (!await_subscriptions(sys, rt))
    return caf::make_error(ec::bus_failure, "the diagnosis agents' topics never reached the bus");
  return {};
}

} // namespace paratune
