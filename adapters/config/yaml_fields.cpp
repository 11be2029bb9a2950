#include "adapters/config/yaml_fields.hpp"

#include <filesystem>

namespace paratune::yaml_fields {

YAML::Node load_file(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw input_error(path + ": no such file");
  try {
    auto node = YAML::LoadFile(path);
    if (!node.IsMap())
      throw input_error(path + ": expected a YAML mapping at the top level");
    return node;
  } catch (const YAML::Exception& e) {
    throw input_error(path + ": line " + std::to_string(e.mark.line + 1)
                      + ": " + e.msg);
  }
}

} // namespace paratune::yaml_fields
