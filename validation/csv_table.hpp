#pragma once

#include <map>
#include <string>
#include <vector>

namespace paratune {

/// One row of a CSV table, read by column name. The accessors throw
/// input_error naming the file, line and column of a missing or malformed
/// cell, so a damaged corpus table says where it is damaged.
class csv_row {
public:
  csv_row(std::string where, std::map<std::string, std::string> cells)
    : where_(std::move(where)), cells_(std::move(cells)) {}

  const std::string& text(const std::string& column) const;
  double number(const std::string& column) const;
  int integer(const std::string& column) const;
  bool empty(const std::string& column) const { return text(column).empty(); }
  /// "file: line N", for messages.
  const std::string& where() const { return where_; }

private:
  std::string where_;
  std::map<std::string, std::string> cells_;
};

/// Reads a CSV file: a header row, then rows; lines starting with '#' and
/// empty lines are skipped; fields may be double-quoted. Throws input_error
/// naming the file when it cannot be opened.
std::vector<csv_row> read_csv_table(const std::string& path);

} // namespace paratune
