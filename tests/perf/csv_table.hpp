#pragma once

// A minimal CSV reader for the shared corpus tables: a header row, then
// rows; lines starting with '#' are comments; fields may be double-quoted.

#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace paratune::test {

struct csv_row {
  std::map<std::string, std::string> fields;

  const std::string& text(const std::string& key) const {
    auto it = fields.find(key);
    if (it == fields.end())
      throw std::runtime_error("csv: no column '" + key + "'");
    return it->second;
  }
  double number(const std::string& key) const { return std::stod(text(key)); }
  int integer(const std::string& key) const { return std::stoi(text(key)); }
  bool empty(const std::string& key) const { return text(key).empty(); }
};

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"')
      quoted = !quoted;
    else if (ch == ',' && !quoted)
      out.emplace_back();
    else if (ch != '\r')
      out.back() += ch;
  }
  return out;
}

inline std::vector<csv_row> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  std::vector<std::string> header;
  std::vector<csv_row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    auto cells = split_csv_line(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    csv_row row;
    for (size_t i = 0; i < header.size(); ++i)
      row.fields[header[i]] = i < cells.size() ? cells[i] : "";
    rows.push_back(std::move(row));
  }
  return rows;
}

/// Mean absolute percentage error of predicted vs measured, in percent.
inline double mape(const std::vector<double>& predicted,
                   const std::vector<double>& measured) {
  double sum = 0;
  for (size_t i = 0; i < predicted.size(); ++i)
    sum += std::abs(predicted[i] - measured[i]) / std::abs(measured[i]);
  return predicted.empty() ? 0 : 100 * sum / predicted.size();
}

} // namespace paratune::test
