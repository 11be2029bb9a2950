#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// Reads report_memory() output (launcher prefix already removed):
///   `[Rank 0] (after 20 iterations) memory (MB) | allocated: X | max allocated: X |
///    reserved: X | max reserved: X` (optionally `| total device memory used: X`)
/// Ranks print without synchronisation, so several reports can be glued on
/// one line; each `[Rank ` starts a new one. Appends one record per report
/// (stamped with `line`) and returns how many it appended.
std::size_t parse_memory_line(std::string_view text, int64_t line,
                              std::vector<memory_record>& out);

} // namespace paratune
