#pragma once

#include <string_view>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// Reads one line of report_theoretical_memory() output into `theory`
/// (text trimmed, prefixes removed). Knows every version's wording:
///   `Number of parameters in transformer layers|block in billions:  6.02`
///   `Number of parameters in embedding layers in billions: 0.41`
///   `Total number of parameters in billions: 6.44`
///   `Number of parameters in most loaded shard in billions: 6.4367`
///   `Number of parameters in other shards in billions: 0.1234`
///   `Activation memory footprint per transformer layer( (precise, without SP))?: 12.5 MB`
///   `Theoretical memory footprints: weight and optimizer=46038.57 MB`
///     (0.15+: `..., activation=X MB, total=X MB`)
///   `Theoretical memory footprints not yet supported for hybrid Mamba-Transformer models.`
/// Returns false when the line is none of these.
bool parse_theory_line(std::string_view trimmed, theoretical_memory& theory);

} // namespace paratune
