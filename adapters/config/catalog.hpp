#pragma once

#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"

namespace YAML {
class Node;
}

namespace paratune {

/// The configs/ directory: $PARATUNE_CONFIGS, else configs/ beside the
/// executable's build tree, else ./configs.
std::string configs_dir();

/// A model by catalog name ("llama3-8b"), by family and size ("llama3",
/// "8B"), or from a YAML file path. Throws input_error naming the model or
/// the field that is wrong.
model_spec load_model(const std::string& name_or_file);
model_spec find_model(const std::string& family, const std::string& size);

/// A model or cluster from its YAML mapping: a file's top level, or the
/// mapping a job gives under `model:` or `cluster:` (what `paratune submit`
/// sends in place of a file). `where` names it in errors.
model_spec model_from_mapping(const YAML::Node& n, const std::string& where);
cluster_spec cluster_from_mapping(const YAML::Node& n, const std::string& where);

/// A model given inline: "layers=96,hidden=12288,heads=96,vocab=51200,ffn=49152"
/// with the optional keys kv_heads, swiglu (0/1), experts, topk, moe_ffn.
model_spec parse_inline_model(const std::string& dims);

/// A cluster by catalog name ("dgx-a100-80g"), YAML file path, or its
/// mapping as flow YAML text ("{name: c, devices_per_node: 8, ...}": how a
/// session hands the simulator a cluster the job gave inline).
cluster_spec load_cluster(const std::string& name_or_file);

/// Catalog names present in configs/models and configs/clusters.
std::vector<std::string> model_names();
std::vector<std::string> cluster_names();

} // namespace paratune
