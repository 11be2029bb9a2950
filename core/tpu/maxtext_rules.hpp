#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/tpu/maxtext_rule_table.hpp"

namespace paratune {

/// Where a MaxText run goes, and the batch it is meant to train: what the
/// rules read beside the overrides.
struct maxtext_target {
  int chips_per_slice = 1;
  int slices = 1;
  /// Sequences per optimizer step the run is meant to train; 0: not checked.
  int global_batch = 0;
};

/// One rule the overrides trip.
struct maxtext_finding {
  maxtext_rule rule;
  std::string message;  ///< the row's message with the values filled in

  const maxtext_rule_row& row() const { return row_of(rule); }
  bool refuses() const { return row().effect == maxtext_effect::refuses; }
  /// What MaxText prints last: "AssertionError: Number of devices per slice
  /// 64 does not match ..." for a refusal; the message alone otherwise.
  std::string printed() const;
};

/// Every rule of maxtext_rule_table() that `overrides` (MaxText's key=value
/// command-line overrides, as render_maxtext_args writes them) trip on
/// `target`, read as MaxText reads them: a model_name's file (where
/// core/tpu/maxtext_model_table has it) under the keys written, and a key
/// set by neither has base.yml's
/// default at maxtext_rules_commit (ici_fsdp_parallelism and
/// dcn_data_parallelism -1, every other axis 1, base_mlp_dim 7168,
/// base_moe_mlp_dim -1, num_experts 1, remat_policy full,
/// pure_nnx_decoder true). In table order; empty when MaxText would run
/// exactly what was written.
std::vector<maxtext_finding> check_maxtext_overrides(std::span<const std::string> overrides,
                                                     const maxtext_target& target);

/// The refusals among `findings` (the rules that stop MaxText at start-up).
std::vector<maxtext_finding> refusals(const std::vector<maxtext_finding>& findings);

} // namespace paratune
