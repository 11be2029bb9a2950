#pragma once

#include "adapters/maxtext/maxtext_log.hpp"
#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// Which framework printed a training log.
enum class training_log_format : uint8_t { megatron, maxtext, unknown };

const char* to_string(training_log_format f);

/// The format of one log read by both readers: MaxText when it has MaxText
/// steps (its step line is nothing like Megatron-LM's iteration line), else
/// Megatron-LM when a line only Megatron-LM prints was read (an iteration,
/// the argument dump, a memory report, timers), else MaxText when its
/// reader found an error or a MaxText line (a run that failed before its
/// first step), else Megatron-LM when its reader found anything, else
/// unknown.
training_log_format detect_training_log_format(const megatron_log& megatron, const maxtext_log& maxtext);

} // namespace paratune
