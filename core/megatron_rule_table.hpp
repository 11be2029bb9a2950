#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paratune {

/// The Megatron-LM commit the rule table was read from (NVIDIA/Megatron-LM).
/// Every row's file and line are at this commit.
inline constexpr std::string_view megatron_rules_commit = "d98e8a64ddf34856e74b24714e3bedb2f5a39553";

/// One start-up check of Megatron-LM that a key paratune tunes or emits can
/// trip, in the order Megatron-LM evaluates them (validate_args, then
/// TransformerConfig's __post_init__, then initialize_model_parallel, then
/// the interleaved schedule's first step). The enum is the program's name
/// for a rule; the table's `id` is its stable text for logs and tests.
enum class megatron_rule : uint8_t {
  world_divisible,
  eval_batch_divisible,
  vpp_uneven_needs_stages,
  vpp_layers_pp,
  vpp_layers_per_stage,
  layers_pp,
  vpp_needs_pp,
  vpp_needs_pp_without_p2p_overlap,
  overlap_param_needs_dist_opt,
  overlap_param_needs_overlap_grad,
  fp16_with_bf16,
  hidden_heads,
  seq_cp,
  max_position_seq,
  recompute_method_selective,
  one_kernel_queue,
  ep_needs_experts,
  experts_ep,
  cross_entropy_fusion_te,
  heads_tp,
  query_groups_tp,
  recompute_needs_method,
  recompute_full_needs_layers,
  recompute_selective_layers,
  uneven_accounted,
  first_stage_vpp,
  last_stage_vpp,
  uneven_mismatch,
  uneven_middle,
  uneven_middle_vpp,
  moe_bias_etp,
  router_topk_one,
  world_expert_grid,
  vpp_microbatch_range,
  vpp_microbatch_remainder,
};

/// The Python exception Megatron-LM raises for a rule: what the traceback's
/// last line starts with.
/// pydantic's ValidationError is MaxText's: its config class refuses a value
/// outside a field's type (configs/pyconfig.py:576).
enum class python_error : uint8_t { assertion, value, runtime, validation };

/// "AssertionError", "ValueError", "RuntimeError",
/// "pydantic_core._pydantic_core.ValidationError".
std::string_view python_error_name(python_error e);

/// One row: a rule, where Megatron-LM has it, and what it says.
struct megatron_rule_row {
  megatron_rule rule;
  std::string_view id;       ///< stable text, e.g. "heads_tp"
  std::string_view file;     ///< path in Megatron-LM, e.g. "megatron/training/arguments.py"
  int line;                  ///< the line Python's traceback names at megatron_rules_commit
  python_error error;
  /// Megatron-LM's message with {name} placeholders; empty for a bare
  /// assert, whose traceback ends in "AssertionError" alone.
  std::string_view message;
};

/// Every row, in Megatron-LM's order of evaluation.
std::span<const megatron_rule_row> megatron_rule_table();

/// The row of `r`.
const megatron_rule_row& megatron_rule_info(megatron_rule r);

/// The row whose id is `id`, or nullptr.
const megatron_rule_row* find_megatron_rule(std::string_view id);

/// The row's message with each {name} replaced by its value. A placeholder
/// without a value stays as written, so a missing value shows in tests.
std::string render_rule_message(const megatron_rule_row& row,
                                const std::vector<std::pair<std::string_view, std::string>>& values);

} // namespace paratune
