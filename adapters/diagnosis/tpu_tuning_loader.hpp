#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/early_stop_policy.hpp"
#include "core/pool_spec.hpp"
#include "core/reasoner_settings.hpp"

namespace paratune {

/// What a TPU experiment file says about tuning it, beside the experiment
/// itself (experiment_loader.hpp):
///
///   trials: 8                  # runs at most, retries included
///   steps: 6                   # MaxText's `steps` per run; step 0 is compilation
///   pools:                     # as a job's (docs/jobs.md); none: one run at a time
///     - {name: v6e, kind: local, capacity: 2,
///        launch: [paratune-tpu-sim, train, experiment.yaml, "{maxtext_args}"]}
///   early_stop: {rung: true, warmup: 1, hang_s: 300, wall_s: 3600}   # or true; absent: off
///   simulation: {time_scale: 0.01, failure_rate: 0.05}   # the simulated pool's trainer
///   reasoner: {mode: llm, base_url: ..., model: ..., api_key_env: ...}  # the Analyzer's and
///                                                 # the Proposal agent's model; absent: builtin
///   env: {XLA_FLAGS: "--xla_dump_to=/tmp/x"}   # set in every run's environment, as a job's
///   secret_env: [HF_TOKEN]                     # never passed to a run, redacted from its output
///
/// With `early_stop:` (as a GPU job's, off when absent), a run that cannot
/// beat the best one is ended (its rung rule), and so is a hung one or one
/// past its wall clock; an ended run is not diagnosed. A TPU run
/// is never ended for being stable, since MaxText writes its profile when
/// the run ends. Replay pools answer from GPU tables and are refused.
struct tpu_tuning_settings {
  int trials = 8;
  int steps = 6;
  std::vector<pool_spec> pools;
  std::optional<early_stop_policy> early_stop;  ///< none: every run goes to its end
  double time_scale = 0;    ///< simulated pools: wall seconds per simulated second
  double failure_rate = 0;  ///< simulated pools: chance a run loses a host
  reasoner_settings reasoner;  ///< read_diagnosis_reasoner's; builtin when absent
  std::map<std::string, std::string> env;  ///< `env:`
  std::vector<std::string> secret_env;     ///< `secret_env:`

  /// Step 0 is compilation; a run is ended when it cannot beat the best.
  static early_stop_policy default_tpu_early_stop();
};

/// Reads those keys from the experiment file at `path` (their absence is
/// the defaults). Throws input_error naming the file and the key.
tpu_tuning_settings load_tpu_tuning(const std::string& path);

/// The same from the file's text; `where` names it in errors.
tpu_tuning_settings parse_tpu_tuning(const std::string& yaml_text, const std::string& where);

} // namespace paratune
