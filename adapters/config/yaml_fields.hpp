#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "core/input_error.hpp"

namespace paratune::yaml_fields {

/// Reads `node[key]` as T. A missing or ill-typed field throws input_error
/// naming `where` (the file) and the key, so the user knows what to fix.
template <class T>
T required(const YAML::Node& node, const std::string& key,
           const std::string& where) {
  const auto field = node[key];
  if (!field)
    throw input_error(where + ": missing field '" + key + "'");
  try {
    return field.as<T>();
  } catch (const YAML::Exception&) {
    throw input_error(where + ": field '" + key + "' has the wrong type (got '"
                      + YAML::Dump(field) + "')");
  }
}

/// Like required(), but returns `fallback` when the field is absent.
template <class T>
T optional(const YAML::Node& node, const std::string& key,
           const std::string& where, T fallback) {
  if (!node[key])
    return fallback;
  return required<T>(node, key, where);
}

/// Loads a YAML file; throws input_error naming the file and the line of a
/// syntax error.
YAML::Node load_file(const std::string& path);

} // namespace paratune::yaml_fields
