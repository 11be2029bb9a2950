// `paratune diagnose --experiment EXP.yaml [--xprof DIR|URL] [--kineto FILE]
// [--megatron-log FILE] [--json] [--db DIR] [--reasoner YAML]`: one request to ASAP's Analyzer
// and Proposal agents, run in this process on a private bus. They read the
// profiles, classify the bottleneck, propose three ranked meshes (TPU) or
// Megatron configurations (GPU) with citations, and record the request, the
// diagnosis and the proposals in the Global Message Pool through the pool
// actor. With --reasoner, a language model reads the profile after the
// built-in Analyzer and proposes a mesh after the built-in Proposal agent,
// both through the guardrails (core/llm/diagnosis_decision.hpp).

#include <chrono>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <yaml-cpp/yaml.h>

#include "actors/diagnosis_agents.hpp"
#include "actors/runtime.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/config/reasoner_loader.hpp"
#include "adapters/llm/chat_client.hpp"
#include "core/input_error.hpp"
#include "messages/conversions.hpp"
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
  std::string reasoner;       ///< YAML, as a job's `reasoner:`; empty: builtin
};

/// The model behind the Analyzer and the Proposal agent, from --reasoner
/// (a job's `reasoner:` in YAML: `llm`, or `{mode: llm, base_url: ...,
/// model: ..., api_key_env: ...}`, or its `agents: {diagnosis: ...}`).
/// Throws input_error (exit 2) naming what is wrong, before anything is
/// sent: a mode the agents cannot take, an unusable URL, a key variable
/// that is not set.
reasoner_settings diagnosis_reasoner(const std::string& text) {
  if (text.empty())
    return {};
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw input_error("--reasoner: not YAML: " + std::string(e.what()));
  }
  const auto settings = read_diagnosis_reasoner(node, "--reasoner");
  if (settings.mode != reasoner_mode::builtin)
    if (auto bad = chat_client(settings).check_settings())
      throw input_error("--reasoner: " + *bad);
  return settings;
}

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
  const auto reasoner = diagnosis_reasoner(o.reasoner);  // bad input: exit 2
  command_runtime rt{o.db, false}; // the diagnosis agents alone
  if (!rt.started())
    return 1;
  auto& sys = rt.system();
  if (auto started = start_diagnosis_agents(sys, rt.get(), agent_options(o)); !started) {
    std::cerr << "error: " << describe(started.error()) << '\n';
    return 1;
  }
  wire::diagnose_request req;
  req.experiment_yaml = read_text_file(o.experiment);
  req.experiment_name = o.experiment;
  req.xprof = o.xprof;
  req.kineto = o.kineto;
  req.megatron_log = o.megatron_log;
  req.timeout_s = o.timeout_s;
  req.reasoner = wire::to_wire(reasoner);
  if (reasoner.mode != reasoner_mode::builtin) {
    // The templates as they are now travel with the request (and are stored).
    req.analyzer_prompt = read_text_file(configs_dir() + "/prompts/diagnosis_analyzer.md");
    req.proposal_prompt = read_text_file(configs_dir() + "/prompts/diagnosis_proposal.md");
  }
  const auto claimed = rt.claim_session_id();
  if (!claimed)
    return 1;
  const auto& session = *claimed;
  // The agents answer within the profile timeout; the margin covers the
  // reading and the proposals, and each agent's two asks of the model with
  // their retries.
  const double model_s = reasoner.mode == reasoner_mode::builtin
                             ? 0
                             : 2 * 2 * reasoner.timeout_s * (reasoner.max_retries + 1);
  const auto wait = std::chrono::seconds(static_cast<long>(o.timeout_s + model_s) + 120);
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
  app.add_option("--reasoner", o->reasoner,
                 "a language model behind the Analyzer and the Proposal agent, as a job's "
                 "reasoner: in YAML ({mode: llm, base_url: URL, model: NAME, api_key_env: VAR})");
  return [o] { return run_diagnose(*o); };
}

registrar diagnose_command{{"diagnose",
               "diagnose a job's bottleneck from its profiles and propose three parallel layouts",
               setup_diagnose}};

} // namespace

} // namespace paratune::cli
