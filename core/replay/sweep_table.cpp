#include "core/replay/sweep_table.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "core/replay/csv_lines.hpp"
#include "core/value_range.hpp"

namespace paratune {

namespace {

// The measurement columns; every other column must be a configuration key.
const char* const time_column = "iteration_ms";
const char* const tflops_column = "tflops_per_gpu";
const char* const memory_column = "peak_memory_mib";
const char* const status_column = "status";

bool is_measurement(const std::string& name) {
  return name == time_column || name == tflops_column || name == memory_column
         || name == status_column;
}

void check_header(const csv_lines& t, const std::string& source) {
  for (const auto& name : t.header)
    if (!is_measurement(name) && !find_config_key(name))
      throw input_error(source + ": line 1: column '" + name
                        + "' is neither a configuration key (tp, pp, mbs, gbs, seq, recompute, "
                          "...) nor iteration_ms, tflops_per_gpu, peak_memory_mib or status");
  if (t.column(time_column) < 0)
    throw input_error(source + ": line 1: no column 'iteration_ms'");
}

failure_kind status_of(const std::string& text, const std::string& where) {
  if (text.empty() || text == "succeeded" || text == "ok" || text == "success")
    return failure_kind::none;
  if (text == "oom" || text == "OOM")
    return failure_kind::oom;
  if (text == "failed")
    return failure_kind::other;
  throw input_error(where + "status: expected succeeded, ok, failed or oom, got '" + text + "'");
}

measured_run read_run(const csv_lines& t, const csv_line& l, const std::string& source,
                      const sweep_context& on) {
  const auto where = source + ": line " + std::to_string(l.number) + ": ";
  measured_run run;
  run.line = l.number;
  run.config = on.base;
  const auto cell = [&](const char* name) {
    const int i = t.column(name);
    return i < 0 ? std::string() : l.cells[i];
  };
  for (size_t i = 0; i < t.header.size(); ++i)
    if (!is_measurement(t.header[i])) {
      try {
        set_value(run.config, t.header[i], l.cells[i]);
      } catch (const input_error& e) {
        throw input_error(where + e.what());
      }
    }
  run.failure = status_of(cell(status_column), where);
  if (!cell(memory_column).empty())
    run.peak_memory_mib = parse_real(where + memory_column, cell(memory_column), 0, 1e9);
  if (run.failed())
    return run;
  run.iteration_ms = parse_real(where + time_column, cell(time_column), 1e-6, 1e12);
  run.tflops_per_gpu =
      cell(tflops_column).empty()
          ? measured_tflops_per_gpu(on.model, run.config, on.gpus, run.iteration_ms)
          : parse_real(where + tflops_column, cell(tflops_column), 1e-9, 1e6);
  return run;
}

// A repeated configuration: its times averaged (the TFLOP/s too, which are
// proportional to 1/time only when derived, so they are averaged as given).
void add_run(measured_landscape& l, measured_run run) {
  for (auto& have : l.runs)
    if (have.config == run.config) {
      if (run.failed() || have.failed())
        return; // a failure and a time cannot be averaged: the first row stands
      const double n = have.repeats;
      have.iteration_ms = (have.iteration_ms * n + run.iteration_ms) / (n + 1);
      have.tflops_per_gpu = (have.tflops_per_gpu * n + run.tflops_per_gpu) / (n + 1);
      have.peak_memory_mib = std::max(have.peak_memory_mib, run.peak_memory_mib);
      ++have.repeats;
      return;
    }
  l.runs.push_back(std::move(run));
}

} // namespace

measured_landscape parse_sweep_table(std::string_view text, const std::string& source,
                                     const sweep_context& on) {
  const auto t = split_measured_csv(text, source);
  check_header(t, source);
  measured_landscape l;
  l.model = on.model;
  l.gpus = on.gpus;
  for (const auto& line : t.rows)
    add_run(l, read_run(t, line, source, on));
  if (l.runs.empty())
    throw input_error(source + ": no measured rows");
  l.gbs = l.runs.front().config.gbs;
  l.seq = l.runs.front().config.seq;
  l.name = l.model.name + "-g" + std::to_string(l.gpus) + "-b" + std::to_string(l.gbs);
  return l;
}

} // namespace paratune
