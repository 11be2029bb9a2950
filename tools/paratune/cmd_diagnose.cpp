// `paratune diagnose --experiment EXP.yaml [--xprof DIR|URL] [--kineto FILE]
// [--megatron-log FILE] [--json] [--db DIR]`: ASAP's Analyzer and Proposal
// agents as one command. Reads the profiles, classifies the bottleneck,
// proposes three ranked meshes (TPU) or Megatron configurations (GPU) with
// citations, and records the diagnosis in the Global Message Pool.

#include <chrono>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "actors/runtime.hpp"
#include "adapters/config/catalog.hpp"
#include "actors/knowledge.hpp"
#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "adapters/diagnosis/history_seed.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "storage/knowledge_index.hpp"
#include "storage/message_pool.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/diagnose_view.hpp"

namespace paratune::cli {

namespace {

struct diagnose_options {
  std::string experiment;
  evidence_request sources;
  std::string db = "paratune-pool";
  std::string knowledge;      ///< documents; configs/knowledge when empty
  std::string optimizations;  ///< history seeds; configs/optimizations when empty
  double timeout_s = 60;
  bool json = false;
};

// Past optimizations from the pool's ledger; an empty ledger is seeded from
// the team's documented records first.
std::vector<past_optimization> pool_history(message_pool& pool, const diagnose_options& o,
                                            std::vector<std::string>& notes) {
  auto ledger = pool.session_history(wire::optimization_ledger);
  if (!ledger) {
    notes.push_back("history not read: " + describe(ledger.error()));
    return {};
  }
  auto records = wire::optimizations_of(*ledger);
  if (!records.empty())
    return records;
  const auto dir = o.optimizations.empty() ? configs_dir() + "/optimizations" : o.optimizations;
  for (const auto& r : load_optimizations_dir(dir)) {
    auto stored = pool.append(wire::make_envelope(wire::optimization_ledger, 0, wire::to_wire(r)));
    if (!stored) {
      notes.push_back("history not seeded: " + describe(stored.error()));
      break;
    }
    records.push_back(r);
  }
  return records;
}

void record_outcome(message_pool& pool, const wire::diagnosis& d, const wire::proposal_set& p,
                    std::vector<std::string>& notes) {
  const auto session = new_session_id();
  for (auto e : {wire::make_envelope(session, 0, d), wire::make_envelope(session, 0, p)})
    if (auto stored = pool.append(std::move(e)); !stored) {
      notes.push_back("not recorded in the pool: " + describe(stored.error()));
      return;
    }
  notes.push_back("recorded in the pool as session " + session);
}

int run_diagnose(diagnose_options o) {
  const auto exp = load_experiment(o.experiment);  // bad input: exit 2
  o.sources.total_timeout = std::chrono::milliseconds(static_cast<long>(o.timeout_s * 1000));
  o.sources.connect_timeout = std::min(o.sources.total_timeout, std::chrono::milliseconds(3000));
  auto evidence = gather_evidence(o.sources);
  std::vector<std::string> notes;
  std::vector<past_optimization> history;
  auto pool = message_pool::open(o.db);
  if (pool)
    history = pool_history(**pool, o, notes);
  else
    notes.push_back("pool not opened, no history: " + describe(pool.error()));
  const auto docs = o.knowledge.empty() ? configs_dir() + "/knowledge" : o.knowledge;
  auto index = open_knowledge(o.db + ".knowledge", docs);
  knowledge_search search;
  if (index)
    search = search_of(**index);
  else
    notes.push_back("knowledge index not opened, no citations: " + describe(index.error()));
  auto out = run_diagnosis(exp, std::move(evidence), history, search);
  auto d = wire::to_wire(out.report, out.evidence.kpis.step_time_ms.value_or(0));
  auto p = wire::to_wire(out.proposals);
  if (pool)
    record_outcome(**pool, d, p, notes);
  p.notes.insert(p.notes.end(), notes.begin(), notes.end());
  if (o.json)
    std::cout << diagnosis_json(exp.name, d, p).dump(2) << '\n';
  else
    std::cout << diagnosis_text(exp.name, d, p);
  return 0;
}

command_action setup(CLI::App& app) {
  auto o = std::make_shared<diagnose_options>();
  app.add_option("--experiment,-e", o->experiment, "the experiment file (YAML)")->required();
  app.add_option("--xprof", o->sources.xprof,
                 "Xprof tool outputs: a directory, or a server URL [?run=NAME&host=HOST]");
  app.add_option("--kineto", o->sources.kineto, "a PyTorch profiler (Kineto) trace");
  app.add_option("--megatron-log", o->sources.megatron_log, "a Megatron-LM log");
  app.add_option("--db", o->db, "the Global Message Pool directory (RocksDB)");
  app.add_option("--knowledge", o->knowledge, "knowledge-base documents (default configs/knowledge)");
  app.add_option("--optimizations", o->optimizations,
                 "past optimizations to seed an empty pool with (default configs/optimizations)");
  app.add_option("--timeout", o->timeout_s, "seconds to wait for a profile server")
    ->check(CLI::PositiveNumber);
  app.add_flag("--json", o->json, "print one JSON object");
  return [o] { return run_diagnose(*o); };
}

registrar reg{{"diagnose",
               "diagnose a job's bottleneck from its profiles and propose three parallel layouts",
               setup}};

} // namespace

} // namespace paratune::cli
