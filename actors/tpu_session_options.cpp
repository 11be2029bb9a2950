#include "actors/tpu_session_options.hpp"

#include <yaml-cpp/yaml.h>

#include "adapters/config/catalog.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "adapters/llm/chat_client.hpp"
#include "core/diagnosis/next_mesh_trial.hpp"
#include "core/input_error.hpp"
#include "messages/conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "messages/topics.hpp"

namespace paratune {

void apply_tuning(tpu_session_options& o, const tpu_tuning_settings& tuning, int trials) {
  o.budget = trials > 0 ? trials : tuning.trials;
  o.steps = tuning.steps;
  for (const auto& p : tuning.pools)
    o.pools.push_back(wire::to_wire(p));
  o.early_stop = tuning.early_stop;
  o.env = tuning.env;
  o.secret_env = tuning.secret_env;
  o.time_scale = tuning.time_scale;
  o.failure_rate = tuning.failure_rate;
  set_diagnosis_reasoner(o, tuning.reasoner);
}

void set_diagnosis_reasoner(tpu_session_options& o, const reasoner_settings& reasoner) {
  if (reasoner.mode == reasoner_mode::builtin)
    return;
  if (auto bad = chat_client(reasoner).check_settings())
    throw input_error(o.experiment_file + ": reasoner: " + *bad);
  o.reasoner = wire::to_wire(reasoner);
  // The templates as they are now travel with each request (and are stored).
  o.analyzer_prompt = read_text_file(configs_dir() + "/prompts/diagnosis_analyzer.md");
  o.proposal_prompt = read_text_file(configs_dir() + "/prompts/diagnosis_proposal.md");
}

wire::tpu_session_opened opened_record(const tpu_session_options& o) {
  wire::tpu_session_opened r;
  r.experiment_name = o.experiment.name;
  r.experiment_file = o.experiment_file;
  r.experiment_yaml = o.experiment_yaml;
  r.model = o.experiment.model.name;
  r.hardware = o.experiment.cluster.name + " " + to_string(o.experiment.slice);
  r.budget = o.budget;
  r.seed = o.seed;
  r.steps = o.steps;
  r.time_scale = o.time_scale;
  r.failure_rate = o.failure_rate;
  r.pools = o.pools;
  if (const auto& p = o.early_stop)
    r.early_stop = {true, p->warmup, p->stable_after, p->tolerance, p->rung, p->hang_s, p->wall_s};
  r.simulator = o.simulator;
  r.runs_dir = o.runs_dir;
  r.env = o.env;
  r.secret_env = o.secret_env;
  r.job_mesh = to_string(o.experiment.mesh);
  r.job_mesh_verdict = job_mesh_verdict(o.experiment);  // why it may not run: the answer says
  r.reasoner = o.reasoner;
  r.analyzer_prompt = o.analyzer_prompt;
  r.proposal_prompt = o.proposal_prompt;
  r.chips = o.experiment.slice.chips();
  r.cluster = wire::to_wire(o.experiment.cluster);
  return r;
}

tpu_session_options options_of(const std::string& id, const wire::tpu_session_opened& r) {
  tpu_session_options o;
  o.id = id;
  o.experiment_file = r.experiment_file;
  o.experiment_yaml = r.experiment_yaml;
  o.experiment = parse_experiment(r.experiment_yaml, r.experiment_file);
  o.budget = r.budget;
  o.seed = r.seed;
  o.steps = r.steps;
  o.time_scale = r.time_scale;
  o.failure_rate = r.failure_rate;
  o.pools = r.pools;
  if (const auto& e = r.early_stop; e.enabled)
    o.early_stop = early_stop_policy{e.warmup, e.stable_after, e.tolerance, e.rung, e.hang_s,
                                     e.wall_s};
  o.simulator = r.simulator;
  o.runs_dir = r.runs_dir;
  o.env = r.env;
  o.secret_env = r.secret_env;
  o.reasoner = r.reasoner;
  o.analyzer_prompt = r.analyzer_prompt;
  o.proposal_prompt = r.proposal_prompt;
  return o;
}

tpu_trial_launch trial_launch(const tpu_session_options& o, const wire::session_opened* job,
                              int trial, const tpu_mesh& mesh, const std::string& pool) {
  return {&o.experiment, o.experiment_file, o.simulator, o.seed,  o.time_scale, o.failure_rate,
          o.steps,       o.id,              o.runs_dir,  trial,   mesh,
          job ? wire::pool_named(*job, pool) : nullptr};
}

wire::diagnose_request diagnosis_request(const tpu_session_options& o, const std::string& mesh,
                                         const std::string& xprof) {
  // The experiment text with the run's mesh in place of the file's.
  YAML::Node root = YAML::Load(o.experiment_yaml);
  root["mesh"] = mesh;
  wire::diagnose_request req;
  req.experiment_yaml = YAML::Dump(root);
  req.experiment_name = o.experiment_file;
  req.xprof = xprof;
  req.reasoner = o.reasoner;
  req.analyzer_prompt = o.analyzer_prompt;
  req.proposal_prompt = o.proposal_prompt;
  return req;
}

std::vector<std::string> tpu_session_topics(const std::string& id) {
  // Trial n's diagnosis records are session "<id>.t<n>" (ledger/tpu_diagnosis).
  return {topics::record(id), topics::trial_prefix(id), topics::diagnosis(id + "."),
          topics::proposals(id + ".")};
}

std::chrono::seconds step_limit(const tpu_session_options& o, bool diagnosis) {
  if (!diagnosis || o.reasoner.mode == reasoner_mode::builtin)
    return o.step_timeout;
  // Each of the two agents asks the model, with its retries.
  const auto& r = o.reasoner;
  return o.step_timeout
         + std::chrono::seconds(static_cast<long>(2 * r.timeout_s * (r.max_retries + 1)));
}

} // namespace paratune
