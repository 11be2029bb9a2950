#pragma once

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace paratune {

/// One column of a Google Visualization DataTable (the JSON shape Xprof uses
/// for overview_page, roofline_model, hlo_stats, ...).
struct gviz_column {
  std::string id;
  std::string label;
  std::string type;  ///< "string", "number", "boolean", ...
};

/// A cell: absent/null, number, string or boolean.
using gviz_cell = std::variant<std::monostate, double, std::string, bool>;

/// A DataTable: columns, rows of cells, and the string properties `p`.
struct gviz_table {
  std::vector<gviz_column> cols;
  std::vector<std::vector<gviz_cell>> rows;
  std::map<std::string, std::string> props;

  /// Index of the column with this id, if any.
  std::optional<std::size_t> column(std::string_view id) const;
  /// The property's value, if present.
  std::optional<std::string> prop(std::string_view key) const;
  /// The property read as a number (parse_xprof_number), if present and one.
  std::optional<double> prop_number(std::string_view key) const;
  /// Cell as a number (numbers, numeric strings, booleans), if it is one.
  std::optional<double> number(std::size_t row, std::optional<std::size_t> col) const;
  /// Cell as text (strings; numbers are formatted), if present.
  std::optional<std::string> text(std::size_t row, std::optional<std::size_t> col) const;
};

/// Parses one DataTable object. `where` names the source in errors.
/// Throws input_error when `j` is not a DataTable-shaped object.
gviz_table parse_gviz_table(const nlohmann::json& j, std::string_view where);

/// Parses a tool answer that is either one DataTable or an array of them.
/// Array elements that are not objects, or empty objects, become empty tables
/// so that positions (overview_page relies on them) are kept.
std::vector<gviz_table> parse_gviz_tables(const nlohmann::json& j, std::string_view where);

/// Parses a number as Xprof prints it in properties: "15.7%", "96.3",
/// "16 (Replica count = 1, ...)". "unknown", "", "N/A" and junk give nullopt.
std::optional<double> parse_xprof_number(std::string_view text);

} // namespace paratune
