#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/early_stop_policy.hpp"
#include "core/pool_spec.hpp"
#include "core/model_spec.hpp"
#include "core/reasoner_settings.hpp"
#include "core/session_stop_policy.hpp"
#include "core/start_policy.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// The longest job file paratune reads from text (a job submitted to the
/// daemon): a job is a page of YAML, not megabytes.
constexpr std::size_t max_job_text_bytes = std::size_t(1) << 20;

/// The configuration the team would run without tuning (the job's
/// `baseline:`, OptiCo section 3.5's expert baseline): the tuned result is
/// worth the GPU-hours it saves against this one.
struct job_baseline {
  training_config config;
  double tflops_per_gpu = 0;  ///< what the team measured for it; 0 when not given
};

/// A tuning job: what to train, where, from which starting point, and which
/// configuration keys the tuner may change (and to which values).
struct job_spec {
  std::string name;
  /// The framework its trials run (`framework:`; frameworks/framework.hpp's
  /// name), Megatron-LM when the job names none.
  std::string framework = "megatron-lm";
  model_spec model;
  cluster_spec cluster;
  std::string cluster_ref;    ///< the cluster as the job names it (catalog name or file)
  int nodes = 1;
  precision prec = precision::bf16;
  /// The first configuration to run. Its seq and gbs are fixed for the job.
  training_config initial;
  /// What the first trial runs (`start:`): the initial configuration by
  /// default, or the model's best candidate.
  start_policy start = start_policy::initial;
  /// Who decides for each agent (`reasoner:`): builtin, or a model behind
  /// guardrails. None when the job names none: the daemon's default then
  /// applies (builtin under `paratune tune`).
  std::optional<agent_reasoners> reasoner;
  /// Tunable keys and the values each may take, in the order the tuner
  /// should consider them. Keys absent here keep their initial value.
  std::map<std::string, std::vector<std::string>> search;
  int trials = 20;            ///< trial budget
  /// Tokens the full training run will see (`tokens:`; 0 when not given):
  /// what the best configuration is worth is priced in them.
  double tokens = 0;
  std::optional<job_baseline> baseline;
  int train_iters = 12;       ///< iterations per trial run
  uint64_t seed = 1;          ///< simulated cluster seed
  /// Wall seconds a simulated trial takes per simulated second (each
  /// iteration's pause is capped at 0.5 s): the simulated pool's pace.
  double sim_time_scale = 0.0002;
  bool retry_transient = false; ///< rerun a config after an NCCL timeout or lost node
  /// End trials once their answer is known (the job's `early_stop:`); absent,
  /// every trial runs its command to the end.
  std::optional<early_stop_policy> early_stop;
  /// When the session ends before its budget (`stop:`): once no candidate
  /// left is likely to beat the best run by more than 1% (the default), or
  /// never (`stop: budget`).
  session_stop_policy stop;
  /// Where trials may run (the job's `pools:`); empty means one simulated
  /// pool running one trial at a time.
  std::vector<pool_spec> pools;
  /// Variables set in every trial's environment (`env:`), over the pool's
  /// `env:`; core/trial_environment.hpp says what else a trial gets.
  std::map<std::string, std::string> env;
  /// Variables of paratune's environment that are secrets (`secret_env:`):
  /// never passed to a trial, their values redacted (core/secret_env.hpp).
  std::vector<std::string> secret_env;

  int world_size() const { return nodes * cluster.devices_per_node; }
};

/// The default search space for a job: the OptiCo tunables (mbs, tp, pp,
/// recompute and its layer count, overlaps, fused cross-entropy, uneven first
/// and last stages) plus sequence parallel and the distributed optimizer,
/// each with the values that can be valid for this model and world size.
std::map<std::string, std::vector<std::string>>
default_search_space(const model_spec& m, const cluster_spec& c, int world_size,
                     const training_config& initial);

} // namespace paratune
