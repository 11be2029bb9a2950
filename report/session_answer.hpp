#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/trial_environment.hpp"
#include "report/session_summary.hpp"

namespace paratune {

/// The Megatron-LM arguments of a production run of the best configuration
/// (core/production_command: without the tuning run's measuring flags).
std::vector<std::string> best_production_args(const session_summary& s);
/// The environment the best configuration's trial needed for the training
/// (its pool's and the job's `env:`, what Megatron-LM asks for), without
/// what only paratune's measuring needed and never a secret's name.
env_list best_production_environment(const session_summary& s);

/// What a report and the session page open on: the session's answer.
struct session_answer {
  int trial = 0;                                            ///< the best trial
  std::vector<std::pair<std::string, std::string>> config;  ///< its keys, in the pool's order
  /// The same keys as the answer lists them (best_config_layout): the
  /// parallel sizes first (dp derived from the world size), then the keys
  /// the session searched, then the rest, which every view folds away.
  std::vector<std::pair<std::string, std::string>> parallel, searched, other;
  /// Why this trial and not another that measured within noise of it
  /// (core/best_choice's tie_sentence); empty when none did.
  std::string tie;
  double tflops_per_gpu = 0;
  double mfu_pct = 0;          ///< the result's MFU, in percent
  double peak_memory_mib = 0;  ///< 0: not reported
  int first_trial = 0;         ///< the first measured trial
  std::optional<double> gain_over_first_pct;
  /// Against the job's baseline: its throughput from a trial of this
  /// session that ran it, else from the job file (report/baseline_value).
  std::optional<double> gain_over_baseline_pct;
  std::string baseline_source;  ///< "trial 3 of this session", "the job file"; empty: none
  std::string command;          ///< the production arguments, one shell-quoted line
  env_list environment;
  /// The full-run price (full_run_sentences) when the job gives `tokens:`;
  /// empty otherwise.
  std::vector<std::string> full_run;
};
/// None while no trial was measured.
std::optional<session_answer> answer_of(const session_summary& s);

/// The answer's configuration in reading order: `parallel` holds tp, pp,
/// dp, cp, ep, vpp and mbs (those the configuration has; dp from the job's
/// world size); `searched` the job's search keys, or when the job names no
/// search space the keys that changed across the session's trials, in
/// canonical order; `other` the rest, canonical order.
void best_config_layout(const session_summary& s, const wire::config_map& c,
                        session_answer& into);
/// What the configuration table lists first: "The parallel sizes, then the
/// keys the job searched." (or, without `search:`, "... the keys that
/// changed across the trials.").
std::string searched_keys_caption(const session_summary& s);
/// "tp 1, pp 2, dp 4, cp 1, ep 1, vpp 1, mbs 1": the parallel sizes on one line.
std::string parallel_sizes_text(const session_answer& a);

/// The production command as a shell reads it: one `export NAME=value`
/// line per variable of `a.environment` (shell-quoted), then the Megatron-LM
/// arguments on one line, newline-ended. The one text that `tune` and
/// `watch` print at the end, the report and the dashboard show, and
/// `export` prints: none of them carries the tuning run's measuring flags.
std::string production_command_text(const session_answer& a);

/// "+12.3%" for a gain in percent.
std::string gain_text(double pct);
/// The answer's lines of figures as (label, value) pairs, for every format:
/// best trial, throughput, MFU, peak memory, gains.
std::vector<std::pair<std::string, std::string>> answer_figures(const session_answer& a);

/// `answer` in the JSON report: {trial, config, tflops_per_gpu, mfu_pct,
/// peak_memory_mib, gain_over_first_pct, first_trial, gain_over_baseline_pct,
/// baseline_source, megatron_args, env, full_run}; null without a measured trial.
nlohmann::json answer_json(const session_summary& s);

} // namespace paratune
