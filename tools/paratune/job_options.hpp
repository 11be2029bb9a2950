#pragma once

// The options `predict` and `plan` share: what to train (--model), where
// (--cluster, --gpus), in which precision, on which software stack.

#include <limits>
#include <string>

#include "core/diagnosis/experiment_spec.hpp"
#include "core/job_spec.hpp"
#include "core/perf/perf_model.hpp"

namespace CLI {
class App;
}

namespace paratune::cli {

/// --gpus not given (0 and negatives are errors to report as such).
inline constexpr int gpus_unset = std::numeric_limits<int>::min();

/// The options as typed.
struct job_options {
  std::string job;          ///< a tuning job file (what `tune` reads), instead of the three below
  std::string experiment;   ///< an experiment file, instead of the three below
  std::string model;        ///< catalog name, YAML file, or inline "layers=..,hidden=.."
  std::string cluster;      ///< catalog name or YAML file
  int gpus = gpus_unset;
  std::string precision;    ///< empty: bf16, or the job's

  std::string stack;        ///< "flash_attention=false,tp_comm_overlap=true,..."
  bool json = false;
};

/// The options resolved: specs loaded, values checked.
struct job_setup {
  model_spec model;
  cluster_spec cluster;
  int gpus = 0;
  precision prec = precision::bf16;
  perf_calibration cal;
};

/// Declares --job, --experiment, --model, --cluster, --gpus, --precision,
/// --stack and --json.
void add_job_options(CLI::App& sub, job_options& o);

/// Loads and checks everything; throws input_error naming the option that is
/// wrong ("--model 'gpt5': unknown model ...", "--gpus 12: ..."). --model,
/// --cluster and --gpus are required unless --experiment is given, and
/// refused with it.
job_setup resolve(const job_options& o);

/// Throws input_error unless exactly one of --job, --experiment and the
/// trio --model/--cluster/--gpus is given.
void check_job_or_experiment(const job_options& o);

/// A tuning job file read by tune's own loader (load_job: its model,
/// cluster, nodes, precision, initial configuration and search space), and
/// the setup it gives: nodes x devices per node, the job's precision unless
/// --precision is given, --stack. A TPU experiment is refused naming
/// --experiment. Throws input_error naming the file.
struct job_file_setup {
  job_spec job;
  job_setup setup;
};
job_file_setup resolve_job_file(const job_options& o);

/// The job of a GPU experiment file (model, cluster, nodes x devices per
/// node, precision), with --stack from the options.
job_setup resolve_gpu_experiment(const experiment_spec& e, const job_options& o);

/// Reads --model: an inline model when it contains '=', else a catalog name
/// or a YAML file.
model_spec load_model_arg(const std::string& text);

/// Reads --stack: the software-stack facts of perf_calibration
/// (flash_attention, tp_comm_overlap, p2p_scatter_gather) as KEY=BOOL items.
perf_calibration parse_stack(const std::string& text);

/// "llama3-8b on 8 x A100-SXM4-80GB (dgx-a100-80g), bf16"
std::string describe_job(const job_setup& job);

} // namespace paratune::cli
