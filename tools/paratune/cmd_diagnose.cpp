// `paratune diagnose --experiment EXP.yaml [--xprof DIR|URL] [--kineto FILE]
// [--megatron-log FILE] [--json] [--db DIR]`: one request to ASAP's Analyzer
// and Proposal agents, run in this process on a private bus. They read the
// profiles, classify the bottleneck, propose three ranked meshes (TPU) or
// Megatron configurations (GPU) with citations, and record the request, the
// diagnosis and the proposals in the Global Message Pool through the pool
// actor.

#include <chrono>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>

#include "actors/diagnosis_agents.hpp"
#include "actors/runtime.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "messages/ec.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/command_runtime.hpp"
#include "tools/paratune/diagnose_view.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct diagnose_options {
  std::string experiment;
  std::string xprof, kineto, megatron_log;
  std::string db = "paratune-pool";
  std::string knowledge;      ///< documents; configs/knowledge when empty
  std::string optimizations;  ///< history seeds; configs/optimizations when empty
  double timeout_s = 60;
  bool json = false;
};

diagnosis_agent_options agent_options(const diagnose_options& o) {
  return {o.db + ".knowledge", o.knowledge.empty() ? configs_dir() + "/knowledge" : o.knowledge,
          o.optimizations.empty() ? configs_dir() + "/optimizations" : o.optimizations};
}

// Prints the answer; a request the agents could not serve is an error,
// exit 2 when the request itself was at fault (a profile, a file).
int print_answer(const diagnose_options& o, const std::string& name, diagnosis_answer a,
                 const std::string& session) {
  if (!a.diagnosis.error.empty()) {
    std::cerr << "error: " << a.diagnosis.error << '\n';
    return a.diagnosis.bad_input ? exit_bad_input : 1;
  }
  a.proposals.notes.push_back("recorded in the pool as session " + session);
  if (o.json)
    print_json(diagnosis_json(name, a.diagnosis, a.proposals));
  else
    std::cout << diagnosis_text(name, a.diagnosis, a.proposals);
  return 0;
}

int run_diagnose(const diagnose_options& o) {
  const auto exp = load_experiment(o.experiment);  // bad input: exit 2
  command_runtime rt{o.db, false}; // the diagnosis agents alone
  if (!rt.started())
    return 1;
  auto& sys = rt.system();
  if (auto started = start_diagnosis_agents(sys, rt.get(), agent_options(o)); !started) {
    std::cerr << "error: " << describe(started.error()) << '\n';
    return 1;
  }
  wire::diagnose_request req{read_text_file(o.experiment), o.experiment, o.xprof, o.kineto,
                             o.megatron_log, o.timeout_s};
  const auto session = new_session_id();
  // The agents answer within the profile timeout; the margin covers the
  // reading and the proposals.
  const auto wait = std::chrono::seconds(static_cast<long>(o.timeout_s) + 120);
  auto answer = request_diagnosis(sys, rt.get(), session, req, wait);
  if (!answer) {
    std::cerr << "error: " << describe(answer.error()) << '\n';
    return 1;
  }
  return print_answer(o, exp.name, std::move(*answer), session);
}

command_action setup_diagnose(CLI::App& app) {
  auto o = std::make_shared<diagnose_options>();
  app.add_option("--experiment,-e", o->experiment, "the experiment file (YAML)")->required();
  app.add_option("--xprof", o->xprof,
                 "Xprof tool outputs: a directory, or a server URL [?run=NAME&host=HOST]");
  app.add_option("--kineto", o->kineto, "a PyTorch profiler (Kineto) trace");
  app.add_option("--megatron-log", o->megatron_log, "a Megatron-LM log");
  app.add_option("--db", o->db, "the Global Message Pool directory (RocksDB)");
  app.add_option("--knowledge", o->knowledge, "knowledge-base documents (default configs/knowledge)");
  app.add_option("--optimizations", o->optimizations,
                 "past optimizations to seed an empty pool with (default configs/optimizations)");
  app.add_option("--timeout", o->timeout_s, "seconds to wait for a profile server")
    ->check(CLI::Range(0.001, 86400.0));
  app.add_flag("--json", o->json, "print one JSON object");
  return [o] { return run_diagnose(*o); };
}

registrar diagnose_command{{"diagnose",
               "diagnose a job's bottleneck from its profiles and propose three parallel layouts",
               setup_diagnose}};

} // namespace

} // namespace paratune::cli
