#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

// Lines Megatron-LM prints once per run, before or after training (§1.5 of
// notes/input_formats.md). Each reader takes text with launcher prefixes
// removed; `trimmed` means surrounding spaces removed too.

enum class args_marker { begin, end };

/// `------------------------ arguments ------------------------` and
/// `-------------------- end of arguments ---------------------`.
std::optional<args_marker> parse_args_marker(std::string_view trimmed);

/// `  tensor_model_parallel_size ...................... 1`: the name, padded
/// with dots to 48 characters, then the value as Python str() (`None`,
/// `['a', 'b']`, `torch.bfloat16`). Names of 48+ characters get no dots.
bool parse_arg_line(std::string_view text, std::string_view& name, std::string_view& value);

/// `using world size: 8, data-parallel size: 1, context-parallel size: 1
/// tensor-model-parallel size: 2, ...` in every version's wording
/// (`data-parallel-size`, missing commas, the hierarchical context-parallel
/// list at HEAD).
bool parse_world_size_line(std::string_view trimmed, parallel_layout& out);

/// `setting number of micro-batches to constant 4` (old) or
/// `setting number of microbatches to constant 4` (new).
std::optional<int> parse_microbatches_line(std::string_view trimmed);

/// `[after megatron is initialized] datetime: 2024-08-26 12:59:38`
bool parse_datetime_marker(std::string_view trimmed, datetime_marker& out);

/// `> number of parameters on (tensor, pipeline) model parallel rank (0, 1): 50370560`,
/// several of which may be glued on one line; also the 23.x form
/// `... rank (tensor_rank: 0, pipeline_rank: 0) (node: 0, ...): 771201024`.
/// Returns how many it appended.
std::size_t parse_rank_parameters_line(std::string_view trimmed,
                                       std::vector<rank_parameters>& out);

/// `exiting program at iteration N`, `exiting program after N minutes`,
/// `exiting program after receiving SIGTERM.`: the whole text.
std::optional<std::string_view> parse_exit_line(std::string_view trimmed);

} // namespace paratune
