#pragma once

// What one TPU session runs under: its options, the record it is opened
// with, and the options a stored session runs under again.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "adapters/diagnosis/tpu_tuning_loader.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/early_stop_policy.hpp"
#include "core/reasoner_settings.hpp"
#include "decisions/tpu_trial_command.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// What one TPU session runs: an experiment, each trial a MaxText training
/// run (MaxText's overrides for its mesh) on the session's pools.
struct tpu_session_options {
  std::string id;               ///< the session; trial n's records are session "<id>.t<n>"
  std::string experiment_file;
  std::string experiment_yaml;  ///< the file's text, sent with every trial's mesh in place
  experiment_spec experiment;
  int budget = 8;               ///< runs at most, retries included
  std::uint64_t seed = 1;       ///< the simulated cluster's hidden truth (simulated pools)
  std::string simulator;        ///< the paratune-tpu-sim executable (simulated pools)
  /// Under it each run gets t<n>/: MaxText's base_output_directory is this
  /// folder (a pool's `workdir:`/<id> instead, when it names one), the
  /// run_name t<n>, so its profile lands in t<n>/tensorboard/plugins/profile/.
  std::string runs_dir;
  int steps = 6;                ///< MaxText's `steps` per run; step 0 is compilation
  double time_scale = 0;        ///< simulated pools: wall seconds per simulated second
  double failure_rate = 0;      ///< simulated pools: chance a run loses a host
  /// Where runs go (local, slurm or simulated pools, core/pool_spec.hpp);
  /// empty: one simulated pool, one run at a time.
  std::vector<wire::pool_wire> pools;
  /// Ends a run that cannot beat the best one, a hung one, one past its
  /// wall clock; none: every run goes to its end.
  std::optional<early_stop_policy> early_stop;
  /// The experiment's `env:`, set in every run's environment, and its
  /// `secret_env:`: names no run sees and whose values are redacted from
  /// its output (always_secret_env() besides).
  std::map<std::string, std::string> env;
  std::vector<std::string> secret_env;
  /// A run that failed for a transient reason (a host lost: the barrier
  /// timed out; the scheduler lost the job) runs again once, on another
  /// pool when one is free.
  int max_runs_per_mesh = 2;
  /// How long a simulated run, or a run's diagnosis with its proposals,
  /// may take before the session fails.
  std::chrono::seconds step_timeout{120};
  /// The model behind each run's Analyzer and Proposal agent (builtin:
  /// none), with the prompt templates they ask it with.
  wire::reasoner_wire reasoner;
  std::string analyzer_prompt;
  std::string proposal_prompt;
  /// The session's records are in the pool already (a daemon that
  /// restarted): the validator runs again, or attaches to, the trials in
  /// flight, a diagnosis not yet answered is asked for again, and the loop
  /// goes on from there.
  bool resume = false;
};

/// Takes what an experiment file says about tuning it (its pools, steps,
/// early stop, simulation and model; tpu_tuning_loader.hpp); `trials` > 0
/// replaces its budget. Throws input_error as set_diagnosis_reasoner does.
void apply_tuning(tpu_session_options& o, const tpu_tuning_settings& tuning, int trials);

/// Sets the model behind the session's Analyzer and Proposal agent, with
/// the prompt templates as they are now (configs/prompts). Throws
/// input_error when the model's address or key cannot work.
void set_diagnosis_reasoner(tpu_session_options& o, const reasoner_settings& reasoner);

/// The record a TPU session is opened with (stored before it starts).
wire::tpu_session_opened opened_record(const tpu_session_options& o);

/// The options a stored session runs under again. Throws input_error when
/// its experiment no longer reads.
tpu_session_options options_of(const std::string& id, const wire::tpu_session_opened& r);

/// What trial `trial`'s command and folder are made from: a run of `mesh`
/// on the pool named `pool` of `job` (none, or no job: the one simulated
/// pool) under the session's options.
tpu_trial_launch trial_launch(const tpu_session_options& o, const wire::session_opened* job,
                              int trial, const tpu_mesh& mesh, const std::string& pool);

/// The request a measured run of `mesh` is diagnosed with: the experiment
/// with that mesh in place of its own, the run's profile folder `xprof`,
/// and the session's model and prompts.
wire::diagnose_request diagnosis_request(const tpu_session_options& o, const std::string& mesh,
                                         const std::string& xprof);

/// The topics a TPU session listens to: its own records (its ledger
/// follows them), its trials' states, and their diagnoses and proposal sets.
std::vector<std::string> tpu_session_topics(const std::string& id);

/// How long a simulated run (`diagnosis` false) or a run's diagnosis with
/// its proposals may take before the session fails: the step timeout, and
/// the model's time on top while a model answers the diagnosis.
std::chrono::seconds step_limit(const tpu_session_options& o, bool diagnosis);

} // namespace paratune
