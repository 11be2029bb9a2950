#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/megatron_rule_table.hpp"

namespace paratune {

/// The MaxText commit the rule table was read from (AI-Hypercomputer/maxtext
/// main of 2026-08-22). Every row's file and line are at this commit, under
/// `src/maxtext/`. The search tool's stored copies of the same files showed
/// the same checks: configs/types.py @ a2a238f3, utils/max_utils.py @
/// 404e5cfc, layers/decoders.py @ 7e5c2f41, configs/base.yml @ e6b06efc,
/// common/metric_logger.py @ 000e6d8a.
inline constexpr std::string_view maxtext_rules_commit = "e591f30cbbf217ed67ef71263ec0538239f9c3b8";

/// One check of MaxText's that a key paratune tunes or writes can trip.
enum class maxtext_rule : uint8_t {
  model_keys_overridden,    ///< a key model_name's file sets is written with another value
  model_name_known,         ///< model_name is one of MaxText's ModelName values
  decoder_block_known,      ///< decoder_block is one of MaxText's DecoderBlockType values
  ici_product,              ///< ICI axes multiply to the chips of one slice
  dcn_product,              ///< DCN axes multiply to the slices
  sequence_axis_ignored,    ///< `sequence` is not a mesh axis: its parallelism is dropped
  global_batch_trained,     ///< the batch trained is devices x per-device batch x accumulation
  moe_mlp_dim_positive,     ///< an MoE model needs base_moe_mlp_dim > 0
  fully_moe_mlp_dims,       ///< every layer MoE: base_mlp_dim == base_moe_mlp_dim
  remat_policy_known,       ///< the policy is one get_remat_policy knows
  remat_minimal_flash,      ///< `minimal_flash` is deprecated for `minimal_with_context`
  remat_none_decoder,       ///< `none` saves everything only in the NNX decoder
};

/// What tripping a rule does to the run.
enum class maxtext_effect : uint8_t {
  refuses,  ///< MaxText raises at start-up: the run never trains
  changes,  ///< MaxText runs, but not the configuration that was written
};

/// One row: a rule, where MaxText has it, and what it says.
struct maxtext_rule_row {
  maxtext_rule rule;
  std::string_view id;    ///< stable text, e.g. "ici_product"
  std::string_view file;  ///< path under src/maxtext/ at maxtext_rules_commit
  int line;               ///< the line the traceback (or the code) names
  maxtext_effect effect;
  python_error error;     ///< the exception, for rules that refuse
  /// MaxText's own message with {name} placeholders where it raises or
  /// warns; for a silent change, what MaxText does, in paratune's words.
  std::string_view message;
};

/// Every row, in the order MaxText meets them (config, then mesh, then model).
std::span<const maxtext_rule_row> maxtext_rule_table();

/// The row of `r`.
const maxtext_rule_row& row_of(maxtext_rule r);

} // namespace paratune
