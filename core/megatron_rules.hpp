#pragma once

#include <string>
#include <vector>

#include "core/model_spec.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// One broken Megatron-LM start-up rule.
struct rule_violation {
  std::string rule;     ///< short stable id, e.g. "heads_tp"
  std::string message;  ///< the text Megatron-LM prints (HEAD wording)
};

/// Every rule that makes Megatron-LM refuse to start, checked for `c` on
/// `world_size` devices. Empty when the configuration would start.
std::vector<rule_violation> check_megatron_rules(const model_spec& m,
                                                 const training_config& c,
                                                 int world_size);

/// Layers on each pipeline stage (uneven first/last split honoured; with
/// pp_account_embedding/pp_account_loss the first/last stage builds one layer
/// less, as Megatron's get_num_layers_to_build). Empty when the split is invalid.
std::vector<int> stage_layers(const model_spec& m, const training_config& c);

/// The layer count Megatron splits over the pipeline: the transformer layers
/// plus one for the embedding and one for the loss when they are accounted.
int pipeline_split_layers(const model_spec& m, const training_config& c);

} // namespace paratune
