// `paratune predict --model M --cluster C --gpus N --config KEY=VALUE,...`:
// what the performance model predicts for one configuration (throughput,
// memory of the most loaded GPU and whether it fits, where the time goes).

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "core/input_error.hpp"
#include "core/megatron_rules.hpp"
#include "core/text.hpp"
#include "core/training_config.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/job_options.hpp"
#include "tools/paratune/prediction_view.hpp"

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
  std::string text = "--config breaks Megatron-LM's rules on " + std::to_string(job.gpus)
                     + " devices:";
  for (const auto& v : broken)
    text += "\n  [" + v.rule + "] " + v.message;
  throw input_error(text);
}

int run_predict(const predict_options& o) {
  const job_setup job = resolve(o.job);
  training_config c;
  try {
    c = parse_config(o.config);
  } catch (const input_error& e) {
    throw input_error("--config: " + std::string(e.what()));
  }
  check_rules(job, c);
  const auto p = predict(job.model, job.cluster, job.gpus, c, job.prec, job.cal);
  if (o.job.json) {
    auto j = prediction_json(p);
    j["model"] = job.model.name;
    j["cluster"] = job.cluster.name;
    j["device"] = job.cluster.device.name;
    j["gpus"] = job.gpus;
    j["precision"] = to_string(job.prec);
    j["config"] = config_json(c);
    j["data_parallel"] = c.data_parallel(job.gpus);
    j["micro_batches"] = c.micro_batches(job.gpus);
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  std::cout << describe(job) << '\n'
            << "config: " << canonical_key(c) << '\n'
            << "data parallel " << c.data_parallel(job.gpus) << ", "
            << c.micro_batches(job.gpus) << " micro-batches per iteration\n\n";
  write_prediction(std::cout, p);
  return 0;
}

command_action setup(CLI::App& sub) {
  auto o = std::make_shared<predict_options>();
  add_job_options(sub, o->job);
  sub.add_option("--config", o->config,
                 "configuration as KEY=VALUE,... (" + join(config_keys(), ", ")
                     + "); unset keys take Megatron's defaults")
    ->required();
  return [o] { return run_predict(*o); };
}

} // namespace

static registrar r{{"predict",
                    "Predict throughput, memory and the time breakdown of one configuration",
                    setup}};

} // namespace paratune::cli
