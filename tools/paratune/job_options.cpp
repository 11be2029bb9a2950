#include "tools/paratune/job_options.hpp"

#include <CLI/CLI.hpp>

#include "adapters/config/catalog.hpp"
#include "adapters/config/job_loader.hpp"
#include "core/input_error.hpp"
#include "core/text.hpp"
#include "core/value_range.hpp"

namespace paratune::cli {

namespace {

// Prefixes a loader's message with the option it came from.
template <class F>
auto naming(const std::string& option, const std::string& value, F load) {
  try {
    return load();
  } catch (const input_error& e) {
    // A long value (a path, a pasted list) is cut: the message stays a line.
    const auto shown = value.size() > 80 ? value.substr(0, 77) + "..." : value;
    throw input_error(option + " '" + shown + "': " + e.what());
  }
}

bool parse_bool(const std::string& key, const std::string& v) {
  if (v == "true" || v == "1" || v == "on")
    return true;
  if (v == "false" || v == "0" || v == "off")
    return false;
  throw input_error("--stack " + key + ": expected true or false, got '" + v + "'");
}

// A job uses whole nodes, or part of one node: anything else would leave
// ranks the model places on NICs that do not exist.
void check_gpus(int gpus, const cluster_spec& c) {
  const auto where = "--gpus " + std::to_string(gpus);
  if (gpus < 1)
    throw input_error(where + ": must be positive");
  const int per_node = c.devices_per_node;
  if (gpus > per_node && gpus % per_node != 0)
    throw input_error(where + ": a job larger than one node takes whole nodes of "
                      + std::to_string(per_node) + " on " + c.name);
  if (gpus < per_node && per_node % gpus != 0)
    throw input_error(where + ": must divide the " + std::to_string(per_node)
                      + " devices of one " + c.name + " node");
  if (c.max_nodes > 0 && gpus > c.max_nodes * per_node)
    throw input_error(where + ": " + c.name + " has at most "
                      + std::to_string(c.max_nodes * per_node) + " devices");
}

} // namespace

void add_job_options(CLI::App& sub, job_options& o) {
  sub.add_option("--job", o.job,
                 "a tuning job file (what tune reads): its model, cluster, nodes, precision, "
                 "initial configuration and search space; replaces --model, --cluster, --gpus");
  sub.add_option("--experiment,-e", o.experiment,
                 "an experiment file (the format diagnose reads): a TPU slice and mesh, or a "
                 "GPU cluster and Megatron-LM configuration; replaces --model, --cluster, --gpus");
  sub.add_option("--model", o.model,
                 "model: catalog name (llama3-8b), YAML file, or inline "
                 "layers=96,hidden=12288,heads=96,vocab=51200[,ffn=..,kv_heads=..,swiglu=1]");
  sub.add_option("--cluster", o.cluster, "cluster: catalog name (dgx-a100-80g) or YAML file");
  sub.add_option("--gpus", o.gpus, "number of devices (whole nodes, or part of one node)")
    ->check(CLI::Range(int64_t(1), max_devices));
  sub.add_option("--precision", o.precision, "bf16, fp16 or fp8 (default bf16, or the job's)");
  sub.add_option("--stack", o.stack,
                 "software stack facts: flash_attention=true|false, tp_comm_overlap=..., "
                 "p2p_scatter_gather=... (defaults: true, false, false)");
  sub.add_flag("--json", o.json, "print JSON (fields: docs/cli_json.md)");
}

model_spec load_model_arg(const std::string& text) {
  return naming("--model", text, [&] {
    if (text.find('=') == std::string::npos)
      return load_model(text);
    model_spec m = parse_inline_model(text);
    m.name = text; // what the user typed names it in reports
    return m;
  });
}

perf_calibration parse_stack(const std::string& text) {
  perf_calibration cal;
  for (const auto& item : split(text, ',')) {
    if (item.empty())
      continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw input_error("--stack '" + item + "': expected KEY=true|false");
    const auto key = item.substr(0, eq);
    const bool v = parse_bool(key, item.substr(eq + 1));
    if (key == "flash_attention") cal.flash_attention = v;
    else if (key == "tp_comm_overlap") cal.tp_comm_overlap = v;
    else if (key == "p2p_scatter_gather") cal.p2p_scatter_gather = v;
    else
      throw input_error("--stack: unknown key '" + key
                        + "' (known: flash_attention, tp_comm_overlap, p2p_scatter_gather)");
  }
  return cal;
}

void check_job_or_experiment(const job_options& o) {
  if (!o.job.empty() && !o.experiment.empty())
    throw input_error("--job and --experiment each name the model and hardware: give one");
  if (!o.experiment.empty() || !o.job.empty()) {
    const auto* option = o.job.empty() ? "--experiment" : "--job";
    if (!o.model.empty() || !o.cluster.empty() || o.gpus != gpus_unset)
      throw input_error(std::string(option) + " names the model, hardware and layout: give "
                        "it without --model, --cluster and --gpus");
    return;
  }
  for (const auto& [name, missing] : {std::pair{"--model", o.model.empty()},
                                      std::pair{"--cluster", o.cluster.empty()},
                                      std::pair{"--gpus", o.gpus == gpus_unset}})
    if (missing)
      throw input_error(std::string(name)
                        + " is required (or --job JOB.yaml, or --experiment EXP.yaml)");
}

namespace {

precision precision_for(const std::string& text, const cluster_spec& cluster) {
  precision prec = precision::bf16;
  if (!parse_precision(text, prec))
    throw input_error("--precision '" + text + "': expected bf16, fp16 or fp8");
  if (prec == precision::fp8 && cluster.device.peak_tflops_fp8 <= 0)
    throw input_error("--precision fp8: " + cluster.device.name + " has no FP8 peak");
  return prec;
}

} // namespace

job_file_setup resolve_job_file(const job_options& o) {
  check_job_or_experiment(o);
  auto doc = read_job_document(o.job);
  if (doc.kind == job_kind::tpu_experiment)
    throw input_error(o.job + ": a TPU mesh experiment, not a tuning job: give it with "
                      "--experiment");
  job_file_setup out{std::move(doc.gpu), {}};
  auto& s = out.setup;
  s.model = out.job.model;
  s.cluster = out.job.cluster;
  s.gpus = out.job.world_size();
  s.prec = o.precision.empty() ? out.job.prec : precision_for(o.precision, s.cluster);
  s.cal = parse_stack(o.stack);
  return out;
}

job_setup resolve(const job_options& o) {
  check_job_or_experiment(o);
  job_setup job;
  job.model = load_model_arg(o.model);
  job.cluster = naming("--cluster", o.cluster, [&] { return load_cluster(o.cluster); });
  check_gpus(o.gpus, job.cluster);
  job.gpus = o.gpus;
  job.prec = precision_for(o.precision.empty() ? "bf16" : o.precision, job.cluster);
  job.cal = parse_stack(o.stack);
  return job;
}

job_setup resolve_gpu_experiment(const experiment_spec& e, const job_options& o) {
  job_setup job;
  job.model = e.model;
  job.cluster = e.cluster;
  job.gpus = e.devices();
  check_gpus(job.gpus, job.cluster);
  job.prec = e.prec;
  if (job.prec == precision::fp8 && job.cluster.device.peak_tflops_fp8 <= 0)
    throw input_error(o.experiment + ": precision fp8: " + job.cluster.device.name
                      + " has no FP8 peak");
  job.cal = o.stack.empty() ? e.stack : parse_stack(o.stack);
  return job;
}

std::string describe_job(const job_setup& job) {
  return job.model.name + " on " + std::to_string(job.gpus) + " x " + job.cluster.device.name
         + " (" + job.cluster.name + "), " + to_string(job.prec);
}

} // namespace paratune::cli
