#pragma once

#include <string>
#include <vector>

#include "core/trial_outcome.hpp"

namespace paratune {

/// The Failure Analysis step (OptiCo appendix D.5) as rules: from the first
/// error a run printed, decide whether a parameter caused it, which one,
/// and how sure that is.
struct failure_verdict {
  failure_kind kind = failure_kind::other;
  std::vector<std::string> blamed; ///< canonical keys
  int confidence = 0;              ///< 0..100
  bool retry = false;              ///< not parameter-related: the same config may run again
  std::string summary;             ///< OptiCo's 30-word form, e.g. "MBS 4 caused ... (Confidence: 92)"
};

/// Whether a failure is worth one more run of the same configuration: it
/// blamed no parameter, and it was infrastructure (timeout, lost node, a
/// job that never started) or a diagnosis too unsure to learn from.
bool worth_retrying(failure_kind kind, int confidence, bool parameters_blamed);

/// `error_kind` is how the log parser (or the launcher) classified the
/// first error (none when it saw no error line), `message` that line.
failure_verdict analyze_failure(failure_kind error_kind, const std::string& message,
                                const training_config& config, int exit_code);

} // namespace paratune
