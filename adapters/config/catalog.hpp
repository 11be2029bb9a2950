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
/// "8B"), from a YAML file path, or from a Hugging Face config.json path
/// (model_from_hf_config). Throws input_error naming the model or the field
/// that is wrong.
model_spec load_model(const std::string& name_or_file);
model_spec find_model(const std::string& family, const std::string& size);

/// A model or cluster from its YAML mapping: a file's top level, or the
/// mapping a job gives under `model:` or `cluster:` (what `paratune submit`
/// sends in place of a file). `where` names it in errors.
/// A key neither reads is refused (refuse_unknown_model_keys), and a flag
/// (swiglu, rmsnorm, tied_embeddings, tpu) is YAML's true or false, or 0/1.
/// A model mapping may instead be `{hf_config: path/config.json}` (with an
/// optional name, family and size): the Hugging Face config, a relative
/// path meaning the file in `folder` (the job file's, or the model file's).
model_spec model_from_mapping(const YAML::Node& n, const std::string& where,
                              const std::string& folder = {});
cluster_spec cluster_from_mapping(const YAML::Node& n, const std::string& where);

/// The model as a model file's mapping, every field written:
/// model_from_mapping reads it back to the same model. What `paratune
/// submit` sends in place of a Hugging Face config the daemon cannot read.
YAML::Node model_mapping(const model_spec& m);

/// Throws input_error "FILE:LINE: INSIDE: unknown key 'swigl' (did you
/// mean 'swiglu'?)" for a key a model's mapping, or a cluster's (its
/// `device:`, `scale_up:` and `scale_out:` included), does not have. A job
/// checks its inline `model:` and `cluster:` with these, so the line named
/// is the job file's.
void refuse_unknown_model_keys(const YAML::Node& n, const std::string& file,
                               const std::string& inside = {});
void refuse_unknown_cluster_keys(const YAML::Node& n, const std::string& file,
                                 const std::string& inside = {});

/// A model given inline: "layers=96,hidden=12288,heads=96,vocab=51200,ffn=49152"
/// with the optional keys kv_heads, swiglu (true/false or 1/0), experts, topk, moe_ffn.
model_spec parse_inline_model(const std::string& dims);

/// A cluster by catalog name ("dgx-a100-80g"), YAML file path, or its
/// mapping as flow YAML text ("{name: c, devices_per_node: 8, ...}": how a
/// session hands the simulator a cluster the job gave inline).
cluster_spec load_cluster(const std::string& name_or_file);

/// Catalog names present in configs/models and configs/clusters.
std::vector<std::string> model_names();
std::vector<std::string> cluster_names();

} // namespace paratune
