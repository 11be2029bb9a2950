#pragma once

#include <span>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "core/input_error.hpp"
#include "core/value_range.hpp"

namespace paratune::yaml_fields {

/// "WHERE: line 7: field 'KEY'": how a field's error begins, naming the
/// line of the file it was read from (without it for a node built in
/// memory, which has none).
std::string field_at(const YAML::Node& field, const std::string& key, const std::string& where);

/// Reads `node[key]` as T. A missing or ill-typed field throws input_error
/// naming `where` (the file), the line and the key, so the user knows what
/// to fix.
template <class T>
T required(const YAML::Node& node, const std::string& key,
           const std::string& where) {
  const auto field = node[key];
  if (!field)
    throw input_error(where + ": missing field '" + key + "'");
  try {
    return field.as<T>();
  } catch (const YAML::Exception&) {
    throw input_error(field_at(field, key, where) + " has the wrong type (got '"
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

/// `text` as digits when it writes a whole number in float notation ("1e6"
/// is "1000000", "8.0" is "8"), else unchanged: what an integer field of a
/// job or model reads before parsing, so that YAML's float spellings of an
/// integer mean that integer.
std::string integer_text(const std::string& text);

/// Reads `node[key]` as an integer in `allowed`: decimal digits, or a whole
/// number in float notation (`1e6`, `8.0`; YAML writes large integers so,
/// and published configs write rope bases as 1e6). A missing field, text
/// that is not an integer ("8.5", "1.5e0", "0x8") or a value out of range
/// throws input_error "WHERE: line N: field 'KEY': ..." naming the range.
int required_int(const YAML::Node& node, const std::string& key, const std::string& where,
                 value_range allowed);

/// Like required_int(), but returns `fallback` when the field is absent.
int optional_int(const YAML::Node& node, const std::string& key, const std::string& where,
                 value_range allowed, int fallback);

/// Reads `node[key]` as a finite number in [min, max]; `fallback` when absent.
double optional_real(const YAML::Node& node, const std::string& key, const std::string& where,
                     double min, double max, double fallback);
double required_real(const YAML::Node& node, const std::string& key, const std::string& where,
                     double min, double max);

/// Throws input_error "WHERE: line 9: key 'trials' appears twice (first on
/// line 3)" for the first mapping, at any depth, that gives a key twice:
/// yaml-cpp keeps both and a lookup answers the first, so the value the
/// user wrote last would be dropped without a word.
void refuse_duplicate_keys(const YAML::Node& root, const std::string& where);

/// Throws input_error "FILE:LINE: INSIDE: unknown key 'trails' (did you
/// mean 'trials'?)" for the first key of mapping `map` that `known` does
/// not list (without "INSIDE: " when `inside` is empty: the top level).
/// The suggestion is core/nearest_name's; with none near enough, the
/// message lists the known keys instead. yaml-cpp would otherwise let a
/// misspelled key pass unread, and the setting the user meant would
/// silently keep its default. `map` must be a mapping.
void refuse_unknown_keys(const YAML::Node& map, std::span<const std::string_view> known,
                         const std::string& file, const std::string& inside = {});

/// Reads `node[key]` as a flag: YAML's true and false (and the other
/// spellings yaml-cpp reads as booleans: yes/no, on/off), or 0 and 1,
/// which files written for older versions use. Anything else throws
/// input_error "WHERE: field 'KEY': expected true or false, got '2'".
bool optional_flag(const YAML::Node& node, const std::string& key, const std::string& where,
                   bool fallback);

/// Loads a YAML file whose top level is a mapping; throws input_error naming
/// the file and the line of a syntax error or of a repeated key.
YAML::Node load_file(const std::string& path);

/// The same for YAML text (a job sent to the daemon); `label` names it.
YAML::Node load_text(const std::string& text, const std::string& label);

} // namespace paratune::yaml_fields
