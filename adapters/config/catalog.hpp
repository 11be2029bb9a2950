#pragma once

#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"

namespace paratune {

/// The configs/ directory: $PARATUNE_CONFIGS, else configs/ beside the
/// executable's build tree, else ./configs.
std::string configs_dir();

/// A model by catalog name ("llama3-8b"), by family and size ("llama3",
/// "8B"), or from a YAML file path. Throws input_error naming the model or
/// the field that is wrong.
model_spec load_model(const std::string& name_or_file);
model_spec find_model(const std::string& family, const std::string& size);

/// A model given inline: "layers=96,hidden=12288,heads=96,vocab=51200,ffn=49152"
/// with the optional keys kv_heads, swiglu (0/1), experts, topk, moe_ffn.
model_spec parse_inline_model(const std::string& dims);

/// A cluster by catalog name ("dgx-a100-80g") or YAML file path.
cluster_spec load_cluster(const std::string& name_or_file);

/// Catalog names present in configs/models and configs/clusters.
std::vector<std::string> model_names();
std::vector<std::string> cluster_names();

} // namespace paratune
