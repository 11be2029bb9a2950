#include "core/replay/csv_lines.hpp"

#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

std::vector<std::string> cells_of(std::string_view line) {
  std::vector<std::string> out;
  for (const auto& cell : split(line, ','))
    out.push_back(trim(cell, " \t\r"));
  return out;
}

} // namespace

int csv_lines::column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name)
      return int(i);
  return -1;
}

csv_lines split_measured_csv(std::string_view text, const std::string& source) {
  csv_lines out;
  int number = 0;
  for (const auto& line : split(text, '\n')) {
    ++number;
    const auto content = trim(line, " \t\r");
    if (content.empty() || (!out.header.empty() && content.front() == '#'))
      continue;
    const auto at = source + ": line " + std::to_string(number);
    if (content.find('"') != std::string::npos)
      throw input_error(at + ": quoted cells are not supported in a measured table");
    if (out.header.empty()) {
      out.header = cells_of(content);
      continue;
    }
    auto cells = cells_of(content);
    if (cells.size() != out.header.size())
      throw input_error(at + ": " + std::to_string(cells.size()) + " cells, the header has "
                        + std::to_string(out.header.size()));
    out.rows.push_back({number, std::move(cells)});
  }
  if (out.header.empty())
    throw input_error(source + ": empty table (expected a header line)");
  return out;
}

} // namespace paratune
