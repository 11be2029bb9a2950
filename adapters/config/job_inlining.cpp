#include "adapters/config/job_inlining.hpp"

#include <filesystem>

#include "adapters/config/catalog.hpp"
#include "adapters/config/hf_config.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/job_file_reference.hpp"

namespace paratune {

namespace {

// The relative paths a pool names, made absolute; true when one changed.
bool absolute_pool_files(YAML::Node pools, const std::string& folder) {
  bool changed = false;
  if (!pools.IsSequence())
    return false;
  for (auto pool : pools) {
    if (!pool.IsMap())
      continue;
    for (const char* key : {"table", "token_file"}) {
      auto field = pool[key];
      if (!field || !field.IsScalar())
        continue;
      const auto file = field.Scalar();
      // A table without a '/' is one of the tables paratune ships.
      if (file.empty() || std::filesystem::path(file).is_absolute()
          || (std::string(key) == "table" && file.find('/') == std::string::npos))
        continue;
      pool[key] = resolve_in_job_folder(file, folder);
      changed = true;
    }
  }
  return changed;
}

} // namespace

std::string inline_job_files(const std::string& path) {
  auto root = yaml_fields::load_file(path);
  const auto folder = job_folder(path);
  std::string note;
  // A Hugging Face config, named or under hf_config:, goes as the model's
  // fields: the daemon reads neither YAML nor JSON files of the client's.
  if (auto model = root["model"]; model && model.IsMap() && model["hf_config"]) {
    note += "# model: hf_config " + model["hf_config"].as<std::string>()
            + ", inlined by paratune submit as its fields\n";
    root["model"] = model_mapping(model_from_mapping(model, path + ": model", folder));
  } else if (model && model.IsScalar() && names_an_hf_config(model.Scalar())) {
    const auto file = resolve_in_job_folder(model.Scalar(), folder);
    note += "# model: " + model.Scalar() + " (" + file
            + "), inlined by paratune submit as its fields\n";
    root["model"] = model_mapping(load_model(file));
  }
  for (const char* key : {"model", "cluster"}) {
    auto field = root[key];
    if (!field || !field.IsScalar() || !names_a_file(field.Scalar()))
      continue;
    const auto file = resolve_in_job_folder(field.Scalar(), folder);
    note += std::string("# ") + key + ": " + field.Scalar() + " (" + file
            + "), inlined by paratune submit\n";
    root[key] = yaml_fields::load_file(file);
  }
  const bool pools_changed = root["pools"] && absolute_pool_files(root["pools"], folder);
  if (note.empty() && !pools_changed)
    return read_text_file(path);
  return note + YAML::Dump(root) + "\n";
}

} // namespace paratune
