#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/perf/perf_model.hpp"
#include "core/tuning/memory_order.hpp"
#include "core/tuning/memory_screen.hpp"
#include "core/tuning/tuning_context.hpp"
#include "core/trial_outcome.hpp"

namespace paratune {

/// Why a replay pool cannot run a configuration: the words every refusal
/// of one starts with, which `tune --json` counts as refused_unavailable.
inline constexpr const char* unavailable_reason =
    "unavailable: not measured in the replay pool's table";

/// OptiCo's three safety guards (constraint, duplicate, failure) plus
/// paratune's memory screen, over a session's history. Each check returns
/// the reason for rejecting, or nothing when the candidate passes.
class safety_guards {
public:
  /// `pending`: trials running now, which a candidate must not repeat either.
  safety_guards(const tuning_context& ctx, const std::vector<trial_outcome>& history,
                memory_screen::predictor predict, const std::vector<pending_trial>& pending = {});

  /// A Megatron start-up rule, a value outside the search space, or (with a
  /// replay pool) a configuration its table did not measure: "unavailable".
  std::optional<std::string> constraint(const training_config& c) const;
  /// False only for a configuration a replay pool's table did not measure.
  bool available(const training_config& c) const;
  /// The same configuration was tried before (any outcome; with
  /// retry_transient, a transient failure may be tried once more) or is
  /// running now.
  std::optional<std::string> duplicate(const training_config& c) const;
  /// The configuration matches a known failure: an OOM of a configuration
  /// that needs no more memory (memory_screen::oom_lesson_for: unless a
  /// success needing at least as much memory came since), or the blamed
  /// values of an invalid one.
  std::optional<std::string> known_failure(const training_config& c) const;
  /// The memory screen (memory_screen.hpp) says it cannot fit.
  std::optional<std::string> memory(const training_config& c,
                                    const perf_prediction& p) const;

  /// The peak the memory screen judged `c` by (the model's, corrected by the
  /// nearest measured run): the figure to show next to a suggestion.
  double screened_peak_mib(const training_config& c, const perf_prediction& p) const {
    return memory_.corrected_peak(c, p).first;
  }

  /// All four in order; the first rejection.
  std::optional<std::string> check(const training_config& c,
                                   const perf_prediction& p) const;


private:
  const tuning_context& ctx_;
  const std::vector<trial_outcome>& history_;
  memory_screen memory_;
  /// History indices of each configuration's trials, by fingerprint: a
  /// candidate's duplicates without a walk over every row.
  std::unordered_map<std::string, std::vector<int>> trials_of_;
  /// Trial numbers of the running trials, by fingerprint.
  std::unordered_map<std::string, int> running_;
  /// Fingerprints of ctx.measured: empty when every configuration may run.
  std::unordered_set<std::string> measured_;
  /// The first of each distinct invalid configuration with blamed keys
  /// known_failure() learns from, in history order (OOMs: memory_screen).
  std::vector<int> failures_;
};

} // namespace paratune
