#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/tuning/health.hpp"
#include "core/tuning/session_stop.hpp"
#include "core/tuning/tuning_context.hpp"
#include "core/trial_outcome.hpp"

namespace paratune {

/// Where a candidate came from, which decides how it is ranked.
enum class candidate_group {
  directive,   ///< the health state's directive (reduce PP, then TP): ranked first
  standard,    ///< a standard change for the bottleneck
  model,       ///< one of the performance model's best configurations
  exploratory, ///< a fallback when every targeted change was rejected
  initial,     ///< the job's initial configuration (trial 1)
  retry,       ///< a failed trial's configuration again, on another pool
  llm,         ///< proposed by a language model, past the guardrails (core/llm)
};

/// "directive", "standard", "model", "exploratory", "initial", "retry", "llm".
const char* to_string(candidate_group g);
bool parse_candidate_group(const std::string& text, candidate_group& out);

/// One candidate configuration the reasoner considered.
struct suggestion {
  training_config config;
  std::vector<config_change> changes;   ///< relative to the base run
  std::string text;                     ///< "Change AC from full to none."
  candidate_group group = candidate_group::standard;
  std::string why;                      ///< why it was generated
  double predicted_tflops = 0;          ///< model prediction, corrected by measurements
  double uncertainty = 0;               ///< relative uncertainty of predicted_tflops
  double oom_risk = 0;                  ///< chance the true peak exceeds the device
  double score = 0;                     ///< what the candidate is ranked by
  double predicted_peak_mib = 0;        ///< the peak the memory screen judged it by
  std::optional<std::string> rejected;  ///< the guard that rejected it
};

/// The outcome of one Bottleneck Analysis + Strategy Generation step.
struct analysis {
  health_diagnosis health;
  int base_trial = -1;                  ///< history index moved from, -1 for none
  int base_number = 0;                  ///< that run's trial number, 0 for none
  training_config base;
  std::vector<suggestion> ranked;       ///< passed every guard, best first
  std::vector<suggestion> rejected;     ///< failed a guard, with the reason
  std::optional<suggestion> selected;   ///< ranked.front(), when any
  bool exhausted = false;               ///< nothing new and valid remains
  /// The session's stop decision over the ranked candidates and the trials
  /// running (tuning_context::stop); stop.stop: the session has converged.
  session_stop_decision stop;
  std::string reasoning;                ///< the chain of reasoning in words
};

/// The configurations of a session's search space that can run, as the
/// reasoner walks them from a base run: each repaired, within Megatron-LM's
/// rules, and available (a replay pool's table). They depend on the tuning
/// context and on the base run's values of the keys the search leaves alone,
/// nothing else, so an analyst keeps one per session between analyses
/// instead of checking every configuration of the space again for each
/// trial (issue 24: most of an analysis's time). Holding one changes no
/// result: analyze() walks the space again whenever `fits` says no.
struct runnable_space {
  training_config from;                 ///< the base it was walked from, masked
  std::vector<training_config> configs; ///< in the walk's order
  bool walked = false;

  /// `base` with every searched key at its first value: two bases with the
  /// same mask give the same walk.
  static training_config mask(const tuning_context& ctx, training_config base);
  /// Whether `configs` is the walk from `base`.
  bool fits(const tuning_context& ctx, const training_config& base) const {
    return walked && from == mask(ctx, base);
  }
};

/// The deterministic built-in reasoner: OptiCo appendix D.2 as code, with
/// the performance model ranking candidates and screening memory.
///
/// It moves from the best successful run so far (OptiCo moves from the last
/// row; starting from the incumbent wastes fewer trials after a bad step),
/// diagnoses its health, generates the directive's candidates or the
/// standard bottleneck candidates plus the model's best predictions, applies
/// the guards (constraints, duplicates, known failures, memory), and falls
/// back to exploratory changes when every targeted change is rejected.
/// Candidates outside the directive are ranked by their expected gain over
/// the best run by more than 1% (candidate_scorer.hpp), from the model's
/// prediction corrected by the session's measurements and its uncertainty
/// (throughput_estimator.hpp), times the chance that the configuration
/// fits: new splits the model ranks close are tried before sub-1% flag
/// toggles of a measured one, and near-OOM candidates last.
///
/// `pending` are the trials running now: a candidate never repeats one, so
/// that trials launched together each measure something new.
///
/// `space`, when given, is the session's runnable space from an earlier
/// analysis (read when it fits this one's base, written when it does not).
///
/// `health`, when given, replaces the diagnosis of the run moved from: a
/// model's reading that the guardrails found consistent with that run's
/// numbers (core/llm/health_decision.hpp). Its directive then decides the
/// candidates as the built-in diagnosis would have.
analysis analyze(const tuning_context& ctx, const std::vector<trial_outcome>& history,
                 const std::vector<pending_trial>& pending = {},
                 runnable_space* space = nullptr,
                 const health_diagnosis* health = nullptr);

} // namespace paratune
