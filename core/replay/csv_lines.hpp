#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// One data line of a measured table: its number in the text (1 = the
/// first line) and its comma-separated cells, trimmed.
struct csv_line {
  int number = 0;
  std::vector<std::string> cells;
};

/// A measured table's text split into its header and data lines. Empty
/// lines and lines starting with '#' after the header are skipped; the
/// header is the first line. The tables are plain comma-separated numbers
/// and names: a quote anywhere, or a line whose cell count differs from the
/// header's, is refused with input_error "SOURCE: line N: ...".
struct csv_lines {
  std::vector<std::string> header;
  std::vector<csv_line> rows;

  /// The header's column index of `name`, or -1.
  int column(std::string_view name) const;
};

csv_lines split_measured_csv(std::string_view text, const std::string& source);

} // namespace paratune
