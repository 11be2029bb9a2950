#include "adapters/config/yaml_fields.hpp"

#include <filesystem>

namespace paratune::yaml_fields {

namespace {

std::string scalar(const YAML::Node& node, const std::string& key, const std::string& where) {
  const auto field = node[key];
  if (!field)
    throw input_error(where + ": missing field '" + key + "'");
  if (!field.IsScalar())
    throw input_error(where + ": field '" + key + "' must be a single value, got '"
                      + YAML::Dump(field) + "'");
  return field.Scalar();
}

std::string field_name(const std::string& key, const std::string& where) {
  return where + ": field '" + key + "'";
}

} // namespace

int required_int(const YAML::Node& node, const std::string& key, const std::string& where,
                 value_range allowed) {
  return parse_int_field(field_name(key, where), scalar(node, key, where), allowed);
}

int optional_int(const YAML::Node& node, const std::string& key, const std::string& where,
                 value_range allowed, int fallback) {
  if (!node[key])
    return fallback;
  return required_int(node, key, where, allowed);
}

double required_real(const YAML::Node& node, const std::string& key, const std::string& where,
                     double min, double max) {
  return parse_real(field_name(key, where), scalar(node, key, where), min, max);
}

double optional_real(const YAML::Node& node, const std::string& key, const std::string& where,
                     double min, double max, double fallback) {
  if (!node[key])
    return fallback;
  return required_real(node, key, where, min, max);
}

YAML::Node load_file(const std::string& path) {
  std::error_code ec; // a name too long for the file system is no file either
  if (path.empty() || !std::filesystem::is_regular_file(path, ec))
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
