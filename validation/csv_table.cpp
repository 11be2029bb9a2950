#include "validation/csv_table.hpp"

#include <charconv>
#include <fstream>

#include "adapters/config/history_csv.hpp"
#include "core/input_error.hpp"

namespace paratune {

const std::string& csv_row::text(const std::string& column) const {
  auto it = cells_.find(column);
  if (it == cells_.end())
    throw input_error(where_ + ": no column '" + column + "'");
  return it->second;
}

double csv_row::number(const std::string& column) const {
  const auto& t = text(column);
  double v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
    throw input_error(where_ + ": column '" + column + "': expected a number, got '" + t + "'");
  return v;
}

int csv_row::integer(const std::string& column) const {
  const auto& t = text(column);
  int v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
    throw input_error(where_ + ": column '" + column + "': expected an integer, got '" + t
                      + "'");
  return v;
}

std::vector<csv_row> read_csv_table(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw input_error("cannot open " + path);
  std::vector<std::string> header;
  std::vector<csv_row> rows;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.empty() || line[0] == '#' || line == "\r")
      continue;
    auto cells = split_csv_line(line);
    if (header.empty()) {
      header = std::move(cells);
      continue;
    }
    std::map<std::string, std::string> named;
    for (size_t i = 0; i < header.size(); ++i)
      named[header[i]] = i < cells.size() ? cells[i] : "";
    rows.emplace_back(path + ": line " + std::to_string(line_no), std::move(named));
  }
  return rows;
}

} // namespace paratune
