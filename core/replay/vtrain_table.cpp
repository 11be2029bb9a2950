#include "core/replay/vtrain_table.hpp"

#include <map>
#include <tuple>

#include "core/input_error.hpp"
#include "core/replay/csv_lines.hpp"
#include "core/value_range.hpp"

namespace paratune {

namespace {

// vTrain's column names, in the order of its single-node file.
enum column { gpus, gbs, mbs, hidden, heads, layers, seq, tp, dp, pp, time_ms, column_count };
const char* const column_names[column_count] = {
    "# GPUs",          "global batch",       "micro batch",          "hidden size",
    "attention heads", "# layers",           "sequence length",      "tensor parallelism",
    "data parallelism", "pipeline parallelism", "iteration time (ms)"};

struct vtrain_row {
  int v[time_ms] = {};
  double iteration_ms = 0;
  int line = 0;
};

std::vector<int> column_indices(const csv_lines& t, const std::string& source) {
  std::vector<int> at;
  for (const char* name : column_names) {
    const int i = t.column(name);
    if (i < 0)
      throw input_error(source + ": line 1: no column '" + name + "' (not a vTrain table)");
    at.push_back(i);
  }
  return at;
}

vtrain_row read_row(const csv_line& l, const std::vector<int>& at, const std::string& source) {
  const auto where = source + ": line " + std::to_string(l.number) + ": ";
  vtrain_row r;
  r.line = l.number;
  for (int c = 0; c < time_ms; ++c)
    r.v[c] = parse_int_field(where + column_names[c], l.cells[at[c]], {1, max_devices});
  r.iteration_ms = parse_real(where + column_names[time_ms], l.cells[at[time_ms]], 1e-6, 1e12);
  if (int64_t(r.v[tp]) * r.v[dp] * r.v[pp] != r.v[gpus])
    throw input_error(where + "tensor x data x pipeline parallelism is "
                      + std::to_string(int64_t(r.v[tp]) * r.v[dp] * r.v[pp]) + ", not the "
                      + std::to_string(r.v[gpus]) + " GPUs");
  if (r.v[gbs] % (int64_t(r.v[mbs]) * r.v[dp]) != 0)
    throw input_error(where + "global batch " + std::to_string(r.v[gbs])
                      + " is not a multiple of micro batch x data parallelism");
  return r;
}

training_config config_of(const vtrain_row& r) {
  training_config c;
  c.tp = r.v[tp];
  c.pp = r.v[pp];
  c.mbs = r.v[mbs];
  c.gbs = r.v[gbs];
  c.seq = r.v[seq];
  c.recompute = recompute_mode::full;
  return c;
}

std::string landscape_name(const model_spec& m, int gpus, int gbs) {
  return m.name + "-g" + std::to_string(gpus) + "-b" + std::to_string(gbs);
}

void add_run(measured_landscape& l, const vtrain_row& r) {
  const auto c = config_of(r);
  for (auto& run : l.runs)
    if (run.config == c) { // measured again: keep the mean
      run.iteration_ms = (run.iteration_ms * run.repeats + r.iteration_ms) / (run.repeats + 1);
      ++run.repeats;
      run.tflops_per_gpu = measured_tflops_per_gpu(l.model, c, l.gpus, run.iteration_ms);
      return;
    }
  l.runs.push_back({c, r.iteration_ms, measured_tflops_per_gpu(l.model, c, l.gpus, r.iteration_ms),
                    0, false, r.line, 1});
}

} // namespace

model_spec vtrain_model(int hidden_size, int head_count, int layer_count, int seq_len) {
  model_spec m;
  m.name = "vtrain-h" + std::to_string(hidden_size) + "-l" + std::to_string(layer_count) + "-a"
           + std::to_string(head_count) + "-s" + std::to_string(seq_len);
  m.family = "gpt3";
  m.layers = layer_count;
  m.hidden = hidden_size;
  m.heads = m.kv_heads = head_count;
  m.ffn = 4 * hidden_size;
  m.vocab = 51200;
  m.swiglu = false;
  m.rmsnorm = false;
  m.tied_embeddings = true;
  return m;
}

bool is_vtrain_header(const std::vector<std::string>& header) {
  bool gpus_column = false, time_column = false;
  for (const auto& h : header) {
    gpus_column |= h == column_names[gpus];
    time_column |= h == column_names[time_ms];
  }
  return gpus_column && time_column;
}

std::vector<measured_landscape> parse_vtrain_table(std::string_view text,
                                                   const std::string& source) {
  const auto table = split_measured_csv(text, source);
  const auto at = column_indices(table, source);
  std::vector<measured_landscape> out;
  std::map<std::tuple<int, int, int, int, int, int>, size_t> index;
  for (const auto& line : table.rows) {
    const auto r = read_row(line, at, source);
    const auto key = std::make_tuple(r.v[hidden], r.v[heads], r.v[layers], r.v[seq], r.v[gpus],
                                     r.v[gbs]);
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) {
      measured_landscape l;
      l.model = vtrain_model(r.v[hidden], r.v[heads], r.v[layers], r.v[seq]);
      l.gpus = r.v[gpus];
      l.gbs = r.v[gbs];
      l.seq = r.v[seq];
      l.name = landscape_name(l.model, l.gpus, l.gbs);
      out.push_back(std::move(l));
    }
    add_run(out[it->second], r);
  }
  return out;
}

void merge_landscapes(std::vector<measured_landscape>& into,
                      std::vector<measured_landscape> more) {
  for (auto& l : more) {
    measured_landscape* same = nullptr;
    for (auto& have : into)
      if (have.name == l.name)
        same = &have;
    if (!same) {
      into.push_back(std::move(l));
      continue;
    }
    for (auto& run : l.runs)
      if (!same->find(run.config))
        same->runs.push_back(std::move(run));
  }
}

} // namespace paratune
