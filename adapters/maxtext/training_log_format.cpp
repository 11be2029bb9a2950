#include "adapters/maxtext/training_log_format.hpp"

namespace paratune {

const char* to_string(training_log_format f) {
  switch (f) {
    case training_log_format::megatron: return "megatron";
    case training_log_format::maxtext: return "maxtext";
    case training_log_format::unknown: return "unknown";
  }
  return "unknown";
}

namespace {

// Lines only Megatron-LM prints: an error line alone (a Python exception)
// could be any framework's.
bool megatron_own_lines(const megatron_log& log) {
  return !log.iterations.empty() || !log.args.empty() || !log.memory.empty() || log.layout
         || !log.timers.empty() || !log.markers.empty() || log.num_microbatches;
}

} // namespace

training_log_format detect_training_log_format(const megatron_log& megatron,
                                               const maxtext_log& maxtext) {
  if (!maxtext.steps.empty())
    return training_log_format::maxtext;
  if (megatron_own_lines(megatron))
    return training_log_format::megatron;
  // MaxText's reader classifies every error line Megatron-LM's does, and
  // XLA's and MaxText's own besides.
  if (maxtext.recognised())
    return training_log_format::maxtext;
  if (megatron.recognised())
    return training_log_format::megatron;
  return training_log_format::unknown;
}

} // namespace paratune
