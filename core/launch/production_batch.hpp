#pragma once

#include <string>
#include <vector>

#include "core/pool_spec.hpp"
#include "core/trial_environment.hpp"

namespace paratune {

/// What a production batch script is written from: the best trial's pool
/// (its launch template, `tasks:` and scheduler options), the job's size,
/// and the production command's parts (core/production_command.hpp).
struct production_batch_request {
  std::string session;
  std::string job_name;
  int trial = 0;                       ///< the best trial, filling {trial}
  std::string pool;                    ///< its pool's name, for the comment
  /// The pool's launch-template tokens; empty (a simulated or replay pool):
  /// torchrun on each node, one task per node, with torch's rendezvous,
  /// running Megatron-LM's pretrain_gpt.py from a MEGATRON_LM placeholder.
  std::vector<std::string> launch;
  slurm_tasks tasks = slurm_tasks::one;
  int nodes = 1;
  int gpus_per_node = 1;
  std::vector<std::string> framework_args;  ///< production_args() of the best trial
  env_list environment;                ///< production_environment(): never a secret
  std::vector<std::string> secret_names;    ///< named in a comment, never their values
  // The scheduler options the pool's jobs asked for; empty or 0: not asked.
  std::string partition, account, qos, constraint, gres;
  bool exclusive = false;
  int time_limit_minutes = 0;
};

/// The paths a production run needs and a tuning run does not, as the
/// script's placeholders: the variable, its placeholder token, the
/// Megatron-LM flag it fills, and what it is.
struct production_path {
  const char* variable;
  const char* placeholder;
  const char* flag;
  const char* what;
};
const std::vector<production_path>& production_paths();

/// A complete Slurm batch script for a production run of the best trial:
/// #SBATCH lines (job name, nodes, tasks per node, the pool's partition,
/// account, qos, constraint, gres, exclusive, time), a block of clearly
/// marked placeholders (DATA_PATH, TOKENIZER_MODEL, CHECKPOINT_DIR,
/// TRAIN_ITERS, each settable from the environment sbatch passes, and
/// refused at run time while it still reads FILL-IN), the production
/// environment, then the pool's launch template as batch_script() runs it:
/// srun per node or per GPU with the rendezvous, or exec'd once. The
/// template's mock-data stand-ins (--mock-data, --tokenizer-type
/// NullTokenizer) give way to the data and tokenizer flags (a relay
/// wrapper was never part of the template). Secrets are named in a comment only. Throws
/// input_error for a scheduler value holding a newline or control
/// character (it would open another #SBATCH line) and what batch_script()
/// refuses.
std::string production_batch_script(const production_batch_request& r);

} // namespace paratune
