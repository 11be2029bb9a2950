#pragma once

#include <string_view>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// Reads a training_log() line (launcher prefix already removed):
///   ` [2024-04-06 02:59:36] iteration       43/     100 | consumed samples: 5504 | ...`
/// Timestamp optional (with or without microseconds); every `key: value`
/// piece is kept in order, unknown fork keys included. Returns false (and
/// leaves `out` unspecified) when the text is not an iteration line.
bool parse_iteration_line(std::string_view text, iteration_record& out);

/// Reads ` validation loss at iteration 100 | lm loss value: ... | lm loss PPL: ... |`
/// (also `validation{suffix} loss at {prefix}` forms). `iteration` stays 0
/// when the prefix names no iteration.
bool parse_validation_line(std::string_view text, validation_record& out);

} // namespace paratune
