// `paratune predict --model M --cluster C --gpus N --config KEY=VALUE,...`,
// `paratune predict --job JOB.yaml [--config ...]` (the job's initial
// configuration, as tune's trial 1 runs it) or `paratune predict
// --experiment EXP.yaml`: what the performance model
// predicts for one configuration (throughput, memory of the most loaded
// device and whether it fits, where the time goes); on TPU, the mesh model
// for the experiment's mesh.

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/initial_check.hpp"
#include "core/input_error.hpp"
#include "core/tpu/mesh_model.hpp"
#include "core/tuning/memory_screen.hpp"
#include "core/megatron_rules.hpp"
#include "core/text.hpp"
#include "core/training_config.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/job_options.hpp"
#include "tools/paratune/mesh_view.hpp"
#include "tools/paratune/prediction_view.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct predict_options {
  job_options job;
  std::string config;
};

// A configuration Megatron-LM would refuse to start has no prediction: the
// user gets Megatron's own words for every rule it breaks.
void check_rules(const job_setup& job, const training_config& c) {
  const auto broken = check_megatron_rules(job.model, c, job.gpus);
  if (broken.empty())
    return;
  throw input_error(rules_refusal_text("--config", job.gpus, broken));
}

training_config config_from(const std::string& text, const training_config& base = {}) {
  try {
    return parse_config(text, base);
  } catch (const input_error& e) {
    throw input_error("--config: " + std::string(e.what()));
  }
}

// A TPU experiment: the mesh model on its mesh. A mesh that cannot run
// this job is refused as bad input, as Megatron's rules are on GPU.
int predict_mesh_experiment(const experiment_spec& e, bool json) {
  const auto p = predict_mesh(e.model, e.cluster, e.slice, e.mesh, e.dcn_mesh, e.workload);
  if (!p.valid()) {
    std::string text = "mesh " + to_string(e.mesh) + " cannot run this job:";
    for (const auto& problem : p.problems)
      text += "\n  " + problem;
    throw input_error(text);
  }
  if (!(p.step_s > 0 && std::isfinite(p.step_s) && p.mfu > 0 && p.mfu <= 1))
    throw std::logic_error("internal error: the mesh model predicted a step of "
                           + std::to_string(p.step_s) + " s at MFU "
                           + std::to_string(p.mfu) + " for mesh " + to_string(e.mesh)
                           + "; please report it");
  if (json) {
    auto j = mesh_job_json(e);
    j.update(mesh_prediction_json(p));
    print_json(j);
    return 0;
  }
  std::cout << describe_mesh_job(e) << '\n'
            << "mesh: " << to_string(e.mesh)
            << (e.slice.num_slices > 1 ? ", across slices: " + to_string(e.dcn_mesh) : "")
            << "\n\n";
  write_mesh_prediction(std::cout, p);
  return 0;
}

// Where the configuration stands with the job's tune: outside its search
// space, or refused by its memory screen before any run. Empty: tune could
// run it.
struct job_standing {
  std::optional<std::string> outside_space;  ///< "tp=3"
  std::optional<std::string> screened_out;   ///< the memory screen's reason
};

int run_predict(const predict_options& o) {
  check_job_or_experiment(o.job);
  job_setup job;
  training_config c;
  std::optional<job_spec> job_file;
  if (!o.job.job.empty()) {
    auto loaded = resolve_job_file(o.job);
    job = loaded.setup;
    // The job's initial configuration, as tune's trial 1 runs it; --config
    // changes the keys it names.
    c = config_from(o.config, loaded.job.initial);
    job_file = std::move(loaded.job);
  } else if (!o.job.experiment.empty()) {
    const auto e = load_experiment(o.job.experiment);
    if (e.platform == device_platform::tpu) {
      if (!o.config.empty())
        throw input_error("--config sets Megatron-LM keys; a TPU experiment's layout is its mesh");
      return predict_mesh_experiment(e, o.job.json);
    }
    job = resolve_gpu_experiment(e, o.job);
    c = config_from(o.config, e.megatron);
  } else {
    job = resolve(o.job);
    if (o.config.empty())
      throw input_error("--config is required with --model (or give --job or --experiment)");
    c = config_from(o.config);
  }
  check_rules(job, c);
  const auto p = predict(job.model, job.cluster, job.gpus, c, job.prec, job.cal);
  if (const auto wrong = impossible_result(p); !wrong.empty())
    throw std::logic_error("internal error: the performance model predicted " + wrong
                           + " for " + canonical_key(c) + " (" + describe_job(job)
                           + "); please report it");
  job_standing standing;
  standing.screened_out = screen_before_any_run(c, p);
  if (job_file)
    standing.outside_space = outside_search_space(job_file->search, job_file->initial, c);
  if (o.job.json) {
    auto j = prediction_json(p);
    j["memory_screen"] =
      standing.screened_out ? nlohmann::json(*standing.screened_out) : nlohmann::json(nullptr);
    if (job_file) {
      j["job"] = job_file->name;
      j["outside_search_space"] =
        standing.outside_space ? nlohmann::json(*standing.outside_space) : nlohmann::json(nullptr);
    }
    j["model"] = job.model.name;
    j["cluster"] = job.cluster.name;
    j["device"] = job.cluster.device.name;
    j["gpus"] = job.gpus;
    j["precision"] = to_string(job.prec);
    j["config"] = config_json(c);
    j["data_parallel"] = c.data_parallel(job.gpus);
    j["micro_batches"] = c.micro_batches(job.gpus);
    print_json(j);
    return 0;
  }
  std::cout << describe_job(job) << '\n'
            << "config: " << canonical_key(c) << '\n'
            << "data parallel " << c.data_parallel(job.gpus) << ", "
            << c.micro_batches(job.gpus) << " micro-batches per iteration\n\n";
  write_prediction(std::cout, p);
  if (job_file) {
    std::cout << "\njob " << job_file->name << ": ";
    if (standing.outside_space)
      std::cout << "outside its search space (" << *standing.outside_space
                << "): tune would not run it\n";
    else if (standing.screened_out)
      std::cout << "tune's " << *standing.screened_out << ": tune would not run it\n";
    else
      std::cout << "inside its search space and passes tune's memory screen\n";
  } else if (standing.screened_out) {
    // The verdict above is the model's band; tune's screen decides what
    // runs, and plan lists only what it lets through.
    std::cout << "\ntune's " << *standing.screened_out
              << ": tune would not run it before a run has measured memory, and plan does not "
                 "list it\n";
  }
  return 0;
}

command_action setup_predict(CLI::App& sub) {
  auto o = std::make_shared<predict_options>();
  add_job_options(sub, o->job);
  sub.add_option("--config", o->config,
                 "configuration as KEY=VALUE,... (" + join(config_keys(), ", ")
                     + "); unset keys take Megatron's defaults, or the job's initial "
                       "configuration, or a GPU experiment's");
  return [o] { return run_predict(*o); };
}

} // namespace

static registrar predict_command{{"predict",
                    "Predict throughput, memory and the time breakdown of one configuration",
                    setup_predict}};

} // namespace paratune::cli
