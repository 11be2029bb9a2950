#include "adapters/config/yaml_fields.hpp"

#include "core/nearest_name.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace paratune::yaml_fields {

namespace {

std::string scalar(const YAML::Node& node, const std::string& key, const std::string& where) {
  const auto field = node[key];
  if (!field)
    throw input_error(where + ": missing field '" + key + "'");
  if (!field.IsScalar())
    throw input_error(field_at(field, key, where) + " must be a single value, got '"
                      + YAML::Dump(field) + "'");
  return field.Scalar();
}

std::string field_name(const YAML::Node& node, const std::string& key,
                       const std::string& where) {
  return field_at(node[key], key, where);
}

// The finite number `text` spells in float notation, if it spells one.
std::optional<double> float_notation(std::string_view text) {
  const auto digits = text.starts_with('+') ? text.substr(1) : text;
  double v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()
      || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// An integer written as digits, or as a whole number in float notation.
int exact_int(const std::string& field, const std::string& text, value_range allowed) {
  const auto v = float_notation(text);
  if (v && *v != std::floor(*v))
    throw input_error(field + ": expected an integer in " + allowed.text() + ", got '"
                      + printable_excerpt(text, 80) + "' (not a whole number)");
  return parse_int_field(field, integer_text(text), allowed);
}

} // namespace

std::string integer_text(const std::string& text) {
  const auto v = float_notation(text);
  // Digits stay as written; within 2^53 a whole double is exact.
  if (!v || *v != std::floor(*v) || std::fabs(*v) > 9007199254740992.0
      || text.find_first_of(".eE") == std::string::npos)
    return text;
  return std::to_string(static_cast<long long>(*v));
}

std::string field_at(const YAML::Node& field, const std::string& key, const std::string& where) {
  const auto mark = field ? field.Mark() : YAML::Mark::null_mark();
  const auto line = mark.is_null() || mark.line < 0 ? std::string()
                                                    : ": line " + std::to_string(mark.line + 1);
  return where + line + ": field '" + key + "'";
}

int required_int(const YAML::Node& node, const std::string& key, const std::string& where,
                 value_range allowed) {
  return exact_int(field_name(node, key, where), scalar(node, key, where), allowed);
}

int optional_int(const YAML::Node& node, const std::string& key, const std::string& where,
                 value_range allowed, int fallback) {
  if (!node[key])
    return fallback;
  return required_int(node, key, where, allowed);
}

double required_real(const YAML::Node& node, const std::string& key, const std::string& where,
                     double min, double max) {
  return parse_real(field_name(node, key, where), scalar(node, key, where), min, max);
}

double optional_real(const YAML::Node& node, const std::string& key, const std::string& where,
                     double min, double max, double fallback) {
  if (!node[key])
    return fallback;
  return required_real(node, key, where, min, max);
}

void refuse_unknown_keys(const YAML::Node& map, std::span<const std::string_view> known,
                         const std::string& file, const std::string& inside) {
  for (const auto& kv : map) {
    const auto key = kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first);
    if (std::find(known.begin(), known.end(), key) != known.end())
      continue;
    std::string hint;
    if (const auto near = nearest_name(key, known))
      hint = " (did you mean '" + *near + "'?)";
    else {
      std::string names;
      for (const auto name : known)
        names += (names.empty() ? "" : ", ") + std::string(name);
      hint = " (known: " + names + ")";
    }
    throw input_error(file + ":" + std::to_string(kv.first.Mark().line + 1) + ": "
                      + (inside.empty() ? "" : inside + ": ") + "unknown key '"
                      + printable_excerpt(key, 80) + "'" + hint);
  }
}

bool optional_flag(const YAML::Node& node, const std::string& key, const std::string& where,
                   bool fallback) {
  const auto field = node[key];
  if (!field)
    return fallback;
  const auto text = field.IsScalar() ? field.Scalar() : YAML::Dump(field);
  if (field.IsScalar()) {
    if (text == "0" || text == "1")
      return text == "1";
    bool flag = false;
    if (YAML::convert<bool>::decode(field, flag))
      return flag;
  }
  throw input_error(field_name(node, key, where) + ": expected true or false, got '"
                    + printable_excerpt(text, 80) + "'");
}

namespace {

std::string key_text(const YAML::Node& key) {
  return key.IsScalar() ? key.Scalar() : YAML::Dump(key);
}

// A mapping's or sequence's start in the text and its type: an alias gives
// the anchored node again, which is walked once (a document of aliases of
// aliases would otherwise take exponential time).
using node_place = std::pair<int, int>;

} // namespace

void refuse_duplicate_keys(const YAML::Node& root, const std::string& where) {
  struct repeat {
    int line = 0, first = 0;
    std::string key;
  };
  std::optional<repeat> earliest; // the repeat nearest the top of the file, at any depth
  std::vector<YAML::Node> pending{root};
  std::set<node_place> walked;
  while (!pending.empty()) {
    const auto node = pending.back();
    pending.pop_back();
    if (!node.IsMap() && !node.IsSequence())
      continue;
    const auto mark = node.Mark();
    if (mark.pos >= 0 && !walked.insert({mark.pos, int(node.Type())}).second)
      continue;
    if (node.IsSequence()) {
      for (const auto& item : node)
        pending.push_back(item);
      continue;
    }
    std::map<std::string, int> first_line;
    for (const auto& kv : node) {
      const auto key = key_text(kv.first);
      const int line = kv.first.Mark().line + 1;
      if (auto [at, fresh] = first_line.emplace(key, line);
          !fresh && (!earliest || line < earliest->line))
        earliest = repeat{line, at->second, key};
      pending.push_back(kv.second);
    }
  }
  if (earliest)
    throw input_error(where + ": line " + std::to_string(earliest->line) + ": key '"
                      + earliest->key + "' appears twice (first on line "
                      + std::to_string(earliest->first) + ")");
}

YAML::Node load_file(const std::string& path) {
  std::error_code ec; // a name too long for the file system is no file either
  if (path.empty() || !std::filesystem::is_regular_file(path, ec))
    throw input_error(path + ": no such file");
  try {
    auto node = YAML::LoadFile(path);
    if (!node.IsMap())
      throw input_error(path + ": expected a YAML mapping at the top level");
    refuse_duplicate_keys(node, path);
    return node;
  } catch (const YAML::Exception& e) {
    throw input_error(path + ": line " + std::to_string(e.mark.line + 1)
                      + ": " + e.msg);
  }
}

YAML::Node load_text(const std::string& text, const std::string& label) {
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw input_error(label + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!node.IsMap())
    throw input_error(label + ": expected a YAML mapping at the top level");
  refuse_duplicate_keys(node, label);
  return node;
}

} // namespace paratune::yaml_fields
