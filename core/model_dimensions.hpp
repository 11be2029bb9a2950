#pragma once

#include <string>
#include <vector>

#include "core/model_spec.hpp"
#include "core/value_range.hpp"

namespace paratune {

/// One integer dimension of a model: its name in model files and inline
/// --model text, the Megatron-LM flag that sets it, and its range.
struct model_dimension {
  const char* name;           ///< "kv_heads"
  const char* megatron_flag;  ///< "--num-query-groups"
  int model_spec::*field;
  value_range range;
};

/// Every integer dimension, in the order model files list them.
const std::vector<model_dimension>& model_dimensions();

/// The row named `name` ("ffn"), or nullptr.
const model_dimension* find_model_dimension(const std::string& name);

/// How check_model names a field in its messages.
enum class dimension_names { paratune, megatron };

/// Checks every dimension against its range and the relations between them:
/// kv_heads divides heads; hidden divides by heads unless head_dim is given;
/// a MoE model has 1 <= topk <= experts and a positive moe_ffn, a dense one no
/// topk and no shared expert. Throws input_error "WHERE: FIELD: ..." for the first broken one.
void check_model(const model_spec& m, const std::string& where,
                 dimension_names names = dimension_names::paratune);

} // namespace paratune
