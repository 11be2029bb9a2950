#pragma once

#include <string>

#include "core/trial_outcome.hpp"

namespace paratune {

/// A failure as the trainer's own log named it ("CUDA out of memory ...",
/// XLA's "RESOURCE_EXHAUSTED ..."), in paratune's classes: what every
/// framework's run reader hands the trial runner.
struct logged_failure {
  failure_kind kind = failure_kind::other;
  std::string message;
};

} // namespace paratune
