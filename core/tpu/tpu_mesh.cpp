#include "core/tpu/tpu_mesh.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "core/value_range.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

bool is_separator(char c) {
  return c == ',' || c == ' ' || c == '{' || c == '}' || c == '\'' || c == '"' || c == '\t'
         || c == '\n';
}

// Splits "{'model': 8, 'data': 16}" or "model=8,data=16" into name/value pairs.
std::vector<std::pair<std::string, std::string>> split_pairs(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string token;
  std::vector<std::string> tokens;
  for (char c : text) {
    if (is_separator(c) || c == '=' || c == ':') {
      if (!token.empty())
        tokens.push_back(std::move(token));
      token.clear();
      if (c == '=' || c == ':')
        tokens.emplace_back("=");
    } else {
      token.push_back(c);
    }
  }
  if (!token.empty())
    tokens.push_back(token);
  for (std::size_t i = 0; i < tokens.size(); i += 3) {
    if (tokens[i] == "=" || i + 1 >= tokens.size() || tokens[i + 1] != "=")
      throw input_error("mesh '" + std::string(text) + "': expected axis=size near '"
                        + tokens[i] + "'");
    if (i + 2 >= tokens.size() || tokens[i + 2] == "=")
      throw input_error("mesh '" + std::string(text) + "': axis '" + tokens[i]
                        + "' has no size");
    out.emplace_back(tokens[i], tokens[i + 2]);
  }
  return out;
}

// 0 stands for an auto axis (-1 or "auto").
int parse_size(const std::string& axis, const std::string& value) {
  if (value == "-1" || lower(value) == "auto")
    return 0;
  return parse_int_field("mesh axis '" + axis + "' (a positive size, or -1 / auto)", value,
                         {1, max_devices});
}

// MaxText names mesh options ici_fsdp_parallelism, dcn_data_parallelism.
std::string without_maxtext_affixes(std::string t) {
  const std::string suffix = "_parallelism";
  if (t.size() > suffix.size() && t.compare(t.size() - suffix.size(), suffix.size(), suffix) == 0)
    t.resize(t.size() - suffix.size());
  for (const char* prefix : {"ici_", "dcn_"})
    if (t.rfind(prefix, 0) == 0 && t != "dcn_data")
      t = t.substr(4);
  return t;
}

} // namespace

const char* to_string(mesh_axis a) {
  switch (a) {
    case mesh_axis::replica: return "replica";
    case mesh_axis::data: return "data";
    case mesh_axis::fsdp: return "fsdp";
    case mesh_axis::seq: return "seq";
    case mesh_axis::expert: return "expert";
    case mesh_axis::model: return "model";
  }
  return "?";
}

bool parse_mesh_axis(std::string_view text, mesh_axis& out) {
  const auto t = without_maxtext_affixes(lower(text));
  if (t == "replica" || t == "dcn_data")
    out = mesh_axis::replica;
  else if (t == "data")
    out = mesh_axis::data;
  else if (t == "fsdp")
    out = mesh_axis::fsdp;
  else if (t == "seq" || t == "sequence" || t == "context")
    out = mesh_axis::seq;
  else if (t == "expert")
    out = mesh_axis::expert;
  else if (t == "model" || t == "tensor" || t == "mdl")
    out = mesh_axis::model;
  else
    return false;
  return true;
}

std::optional<mesh_axis> tpu_mesh::auto_axis() const {
  for (auto a : all_mesh_axes)
    if (at(a) == 0)
      return a;
  return std::nullopt;
}

void fill_auto_axis(tpu_mesh& m, int chips) {
  const auto axis = m.auto_axis();
  if (!axis)
    return;
  m.set(*axis, 1);
  const int others = m.chips();
  if (others < 1 || chips % others != 0)
    throw input_error("mesh " + to_string(m) + ": the auto axis '" + to_string(*axis)
                      + "' cannot take the rest of " + std::to_string(chips)
                      + " chips: the other axes span " + std::to_string(others));
  m.set(*axis, chips / others);
}

void tpu_mesh::set(mesh_axis a, int size) {
  sizes[static_cast<int>(a)] = size;
}

int tpu_mesh::chips() const {
  int n = 1;
  for (int s : sizes)
    n *= s;
  return n;
}

std::vector<mesh_axis> tpu_mesh::listed() const {
  std::vector<mesh_axis> out;
  for (auto a : all_mesh_axes)
    if (at(a) > 1 || std::find(shown.begin(), shown.end(), a) != shown.end())
      out.push_back(a);
  return out;
}

tpu_mesh parse_mesh(std::string_view text) {
  tpu_mesh m;
  std::vector<mesh_axis> seen;
  for (const auto& [name, value] : split_pairs(text)) {
    mesh_axis a;
    if (!parse_mesh_axis(name, a))
      throw input_error("mesh '" + std::string(text) + "': unknown axis '" + name
                        + "' (replica, data, fsdp, seq, expert, model)");
    if (std::find(seen.begin(), seen.end(), a) != seen.end())
      throw input_error("mesh '" + std::string(text) + "': axis '" + name + "' given twice");
    seen.push_back(a);
    m.set(a, parse_size(name, value));
  }
  if (seen.empty())
    throw input_error("mesh '" + std::string(text) + "' names no axis");
  int autos = 0;
  for (int size : m.sizes)
    autos += size == 0;
  if (autos > 1)
    throw input_error("mesh '" + std::string(text) + "': only one axis may be -1 (auto)");
  // Every axis fits alone; their product must too, or chips() overflows.
  int64_t chips = 1;
  for (int size : m.sizes)
    chips *= std::max(size, 1);
  if (chips > max_devices)
    throw input_error("mesh '" + std::string(text) + "': the axes span more than "
                      + std::to_string(max_devices) + " chips");
  for (auto a : all_mesh_axes)
    if (std::find(seen.begin(), seen.end(), a) != seen.end())
      m.shown.push_back(a);
  return m;
}

std::string to_string(const tpu_mesh& m) {
  std::string out;
  for (auto a : m.listed()) {
    if (!out.empty())
      out += ',';
    out += std::string(to_string(a)) + "=" + std::to_string(m.at(a));
  }
  return out.empty() ? "data=1" : out;
}

std::string describe_mesh_change(const tpu_mesh& from, const tpu_mesh& to) {
  std::string out;
  for (auto a : all_mesh_axes) {
    if (from.at(a) == to.at(a))
      continue;
    if (!out.empty())
      out += ", ";
    out += std::string(to_string(a)) + " " + std::to_string(from.at(a)) + "->"
           + std::to_string(to.at(a));
  }
  return out.empty() ? "no change" : out;
}

} // namespace paratune
