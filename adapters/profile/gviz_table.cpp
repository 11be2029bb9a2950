#include "adapters/profile/gviz_table.hpp"

#include "core/input_error.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>

namespace paratune {

namespace {

gviz_cell to_cell(const nlohmann::json& c) {
  if (!c.is_object())
    return std::monostate{};
  auto v = c.find("v");
  if (v == c.end() || v->is_null())
    return std::monostate{};
  if (v->is_number())
    return v->get<double>();
  if (v->is_boolean())
    return v->get<bool>();
  if (v->is_string())
    return v->get<std::string>();
  return v->dump();
}

std::string string_or_dump(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string json_string_field(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

} // namespace

std::optional<std::size_t> gviz_table::column(std::string_view id) const {
  for (std::size_t i = 0; i < cols.size(); ++i)
    if (cols[i].id == id)
      return i;
  return std::nullopt;
}

std::optional<std::string> gviz_table::prop(std::string_view key) const {
  auto it = props.find(std::string(key));
  if (it == props.end())
    return std::nullopt;
  return it->second;
}

std::optional<double> gviz_table::prop_number(std::string_view key) const {
  auto v = prop(key);
  return v ? parse_xprof_number(*v) : std::nullopt;
}

std::optional<double> gviz_table::number(std::size_t row, std::optional<std::size_t> col) const {
  if (!col || row >= rows.size() || *col >= rows[row].size())
    return std::nullopt;
  const gviz_cell& c = rows[row][*col];
  if (auto d = std::get_if<double>(&c))
    return *d;
  if (auto s = std::get_if<std::string>(&c))
    return parse_xprof_number(*s);
  if (auto b = std::get_if<bool>(&c))
    return *b ? 1.0 : 0.0;
  return std::nullopt;
}

std::optional<std::string> gviz_table::text(std::size_t row, std::optional<std::size_t> col) const {
  if (!col || row >= rows.size() || *col >= rows[row].size())
    return std::nullopt;
  const gviz_cell& c = rows[row][*col];
  if (auto s = std::get_if<std::string>(&c))
    return *s;
  if (auto d = std::get_if<double>(&c)) {
    // Integral values print without a fraction ("3", not "3.000000").
    if (std::floor(*d) == *d && std::fabs(*d) < 1e15)
      return std::to_string(static_cast<long long>(*d));
    return std::to_string(*d);
  }
  if (auto b = std::get_if<bool>(&c))
    return *b ? "true" : "false";
  return std::nullopt;
}

gviz_table parse_gviz_table(const nlohmann::json& j, std::string_view where) {
  if (!j.is_object())
    throw input_error(std::string(where) + ": expected a DataTable object, got "
                      + std::string(j.type_name()));
  gviz_table t;
  if (auto cols = j.find("cols"); cols != j.end()) {
    if (!cols->is_array())
      throw input_error(std::string(where) + ": DataTable field 'cols' is not an array");
    for (const auto& c : *cols) {
      if (!c.is_object())
        throw input_error(std::string(where) + ": DataTable column is not an object");
      t.cols.push_back({json_string_field(c, "id"), json_string_field(c, "label"),
                        json_string_field(c, "type")});
    }
  }
  if (auto rows = j.find("rows"); rows != j.end()) {
    if (!rows->is_array())
      throw input_error(std::string(where) + ": DataTable field 'rows' is not an array");
    t.rows.reserve(rows->size());
    for (const auto& r : *rows) {
      std::vector<gviz_cell> cells;
      auto c = r.is_object() ? r.find("c") : r.end();
      if (r.is_object() && c != r.end() && c->is_array()) {
        cells.reserve(c->size());
        for (const auto& cell : *c)
          cells.push_back(to_cell(cell));
      }
      t.rows.push_back(std::move(cells));
    }
  }
  if (auto p = j.find("p"); p != j.end() && p->is_object())
    for (const auto& [k, v] : p->items())
      t.props[k] = string_or_dump(v);
  return t;
}

std::vector<gviz_table> parse_gviz_tables(const nlohmann::json& j, std::string_view where) {
  std::vector<gviz_table> tables;
  if (j.is_object()) {
    tables.push_back(parse_gviz_table(j, where));
    return tables;
  }
  if (!j.is_array())
    throw input_error(std::string(where) + ": expected a DataTable or an array of them, got "
                      + std::string(j.type_name()));
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (j[i].is_object())
      tables.push_back(parse_gviz_table(j[i], std::string(where) + "[" + std::to_string(i) + "]"));
    else
      tables.emplace_back();
  }
  return tables;
}

std::optional<double> parse_xprof_number(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  if (!text.empty() && text.front() == '+')
    text.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

} // namespace paratune
