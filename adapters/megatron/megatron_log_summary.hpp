#pragma once

#include <ostream>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// Writes a readable summary of a parsed log (what `paratune parse-log`
/// prints without --json): parallel layout and key arguments, every logged
/// iteration with its time and TFLOP/s, memory per rank, theoretical memory,
/// and the errors with their line numbers.
void write_summary(std::ostream& out, const megatron_log& log);

} // namespace paratune
