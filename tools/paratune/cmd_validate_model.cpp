// `paratune validate-model [--data DIR] [--json]`: the performance model
// against every published table in data/perf/, row by row, with the
// gates of docs/performance_model.md. Exit status 1 when a gate fails, so a
// calibration change that breaks the model fails a script too.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "adapters/config/executable_paths.hpp"
#include "validation/perf_tables.hpp"
#include "validation/model_validation.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct validate_options {
  std::string data;
  bool json = false;
};

// Seconds, MiB and percentages side by side: digits where they matter.
std::string number(double v) {
  const double a = std::abs(v);
  return a >= 1000 ? fmt::format("{:.0f}", v)
         : a >= 10  ? fmt::format("{:.1f}", v)
                    : fmt::format("{:.3f}", v);
}

std::string stat_text(const validation_stat& s) {
  std::string out = s.name + " " + (s.unit == "%" ? fmt::format("{:.2f}%", s.value)
                                    : s.unit.empty() ? fmt::format("{:.3f}", s.value)
                                                     : fmt::format("{:.0f}{}", s.value, s.unit));
  if (s.gated)
    out += fmt::format(" (gate {} {:g}{}) {}", s.at_most ? "<=" : ">=", s.limit, s.unit,
                       s.pass() ? "pass" : "FAIL");
  return out;
}

void write_row(std::ostream& out, const validation_row& r) {
  if (r.values.empty())
    out << fmt::format("  {:<34} {}{}\n", r.label, r.note, r.right ? "" : "  <-- wrong verdict");
  for (size_t i = 0; i < r.values.size(); ++i) {
    const auto& v = r.values[i];
    const bool last = i + 1 == r.values.size();
    // '>' on the number: fmt 9 would left-align inf and nan, printf did not.
    out << fmt::format("  {:<34} {:<27} {:>9} vs {:>9} {:>+7.1f}%",
                       i == 0 ? r.label : std::string(), v.what, number(v.predicted),
                       number(v.measured), v.error_pct());
    if (last && !r.note.empty())
      out << "  " << r.note << (r.right ? "" : "  <-- wrong verdict");
    out << '\n';
  }
}

void write_table(std::ostream& out, const table_validation& t) {
  out << t.title << ": " << (t.pass() ? "PASS" : "FAIL") << '\n';
  for (const auto& r : t.rows)
    write_row(out, r);
  for (const auto& s : t.stats)
    out << "  " << stat_text(s) << '\n';
  out << '\n';
}

nlohmann::json table_json(const table_validation& t) {
  using nlohmann::json;
  json rows = json::array();
  for (const auto& r : t.rows) {
    json values = json::array();
    for (const auto& v : r.values)
      values.push_back({{"what", v.what}, {"predicted", v.predicted},
                        {"measured", v.measured}, {"error_pct", v.error_pct()}});
    rows.push_back({{"label", r.label}, {"values", values}, {"note", r.note},
                    {"right", r.right}});
  }
  json stats = json::array();
  for (const auto& s : t.stats) {
    json j = {{"name", s.name}, {"value", s.value}, {"unit", s.unit}, {"gated", s.gated}};
    if (s.gated) {
      j["gate"] = s.at_most ? "<=" : ">=";
      j["limit"] = s.limit;
      j["pass"] = s.pass();
    }
    stats.push_back(std::move(j));
  }
  return {{"id", t.id}, {"title", t.title}, {"pass", t.pass()}, {"stats", stats},
          {"rows", rows}};
}

int run_validate(const validate_options& o) {
  const auto data = find_data_dir(o.data);
  const auto tables = validate_all(read_published_tables(data));
  int passed = 0;
  for (const auto& t : tables)
    passed += t.pass();
  const bool all = passed == static_cast<int>(tables.size());
  if (o.json) {
    nlohmann::json j = {{"data_dir", data}, {"pass", all}, {"tables", nlohmann::json::array()}};
    for (const auto& t : tables)
      j["tables"].push_back(table_json(t));
    print_json(j);
  } else {
    std::cout << "performance model vs the published tables in " << data << "/perf\n\n";
    for (const auto& t : tables)
      write_table(std::cout, t);
    std::cout << passed << "/" << tables.size() << " tables pass their gates\n";
  }
  return all ? 0 : 1;
}

command_action setup_validate_model(CLI::App& sub) {
  auto o = std::make_shared<validate_options>();
  sub.add_option("--data", o->data,
                 "the data directory holding perf/ (default: $PARATUNE_DATA, or the data/ "
                 "of the checkout the executable was built in)");
  sub.add_flag("--json", o->json, "print JSON (fields: docs/cli_json.md)");
  return [o] { return run_validate(*o); };
}

} // namespace

static registrar validate_model_command{{"validate-model",
                    "Compare the performance model with the published tables (exit 1 on a "
                    "failed gate)",
                    setup_validate_model}};

} // namespace paratune::cli
