#include "adapters/config/history_csv.hpp"

#include <algorithm>
#include <fstream>
#include <istream>
#include <map>

#include "core/input_error.hpp"
#include "core/text.hpp"
#include "core/training_config.hpp"
#include "core/value_range.hpp"

namespace paratune {

namespace {

bool contains(const std::string& hay, const char* needle) {
  return lower(hay).find(needle) != std::string::npos;
}

/// Column names (lower-cased) -> canonical configuration keys: every key by
/// its own name, and OptiCo's names for some of them.
const std::map<std::string, std::string>& column_keys() {
  static const std::map<std::string, std::string> m = [] {
    std::map<std::string, std::string> out = {
      {"micro_batch_size", "mbs"}, {"global_batch_size", "gbs"}, {"seq_length", "seq"},
      {"ac", "recompute"}, {"ac_layers", "recompute_layers"},
      {"overlap_grad_reduce", "overlap_grad"}, {"overlap_param_gather", "overlap_param"},
      {"fused_cross_entropy", "fused_ce"}, {"first_pp_num_layers", "first_pp_layers"},
      {"last_pp_num_layers", "last_pp_layers"}, {"distributed_optimizer", "dist_opt"}};
    for (const auto& key : config_keys())
      out[key] = key;
    return out;
  }();
  return m;
}

// An empty or null cell is 0 (failed runs leave their numbers out); any
// other must be a number in [min, max].
double to_number(const std::string& text, const std::string& where, double min, double max) {
  if (text.empty() || lower(text) == "null")
    return 0;
  return parse_real(where, text, min, max);
}

/// OptiCo writes "None" for unset layer counts and "sel" for selective.
std::string normalize_value(const std::string& key, const std::string& v) {
  const auto l = lower(v);
  if ((key == "first_pp_layers" || key == "last_pp_layers" || key == "recompute_layers")
      && (l == "none" || l == "null" || l.empty()))
    return "0";
  return v;
}

} // namespace

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

failure_kind classify_failure_text(const std::string& text, std::vector<std::string>& blamed) {
  blamed.clear();
  if (contains(text, "oom") || contains(text, "out of memory") || contains(text, "outofmemory")) {
    blamed = {"mbs", "recompute"};
    return failure_kind::oom;
  }
  if (contains(text, "timeout") || contains(text, "watchdog"))
    return failure_kind::nccl_timeout;
  if (contains(text, "nan") && contains(text, "loss"))
    return failure_kind::nan;
  if (contains(text, "valueerror") || contains(text, "divisible") || contains(text, "multiple")
      || contains(text, "assert") || contains(text, "incompatib")) {
    static const std::pair<const char*, const char*> names[] = {
      {"tp ", "tp"}, {"tensor", "tp"}, {"pp ", "pp"}, {"pipeline", "pp"},
      {"mbs", "mbs"}, {"micro", "mbs"}, {"cp ", "cp"}, {"context", "cp"},
      {"ep ", "ep"}, {"expert", "ep"}};
    const auto l = lower(text) + " ";
    for (auto [needle, key] : names)
      if (l.find(needle) != std::string::npos
          && std::find(blamed.begin(), blamed.end(), key) == blamed.end())
        blamed.push_back(key);
    return failure_kind::config_invalid;
  }
  return text.empty() ? failure_kind::other : failure_kind::other;
}

history_table load_history_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw input_error(path + ": cannot read");
  return read_history_csv(in, path);
}

history_table read_history_csv(std::istream& in, const std::string& source) {
  history_table t;
  std::vector<std::string> header;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r,") == std::string::npos)
      continue;
    auto cells = split_csv_line(line);
    if (header.empty()) {
      for (auto& c : cells)
        header.push_back(lower(c));
      for (const char* need : {"micro_batch_size", "tp", "pp", "result"})
        if (std::find(header.begin(), header.end(), need) == header.end())
          throw input_error(source + ": line " + std::to_string(line_no)
                            + ": missing column '" + need + "'");
      continue;
    }
    const auto where = source + ": line " + std::to_string(line_no);
    if (cells.size() != header.size())
      throw input_error(where + ": " + std::to_string(cells.size()) + " cells, the header has "
                        + std::to_string(header.size()));
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size(); ++i)
      row[header[i]] = cells[i];
    trial_outcome r;
    for (const auto& [col, value] : row) {
      auto k = column_keys().find(col);
      if (k == column_keys().end() || value.empty())
        continue;
      try {
        set_value(r.config, k->second, normalize_value(k->second, value));
      } catch (const input_error& e) {
        throw input_error(where + ": column '" + col + "': " + e.what());
      }
    }
    if (!parse_trial_status(lower(row["result"]), r.status))
      throw input_error(where + ": column 'result': expected success or fail, got '"
                        + row["result"] + "'");
    // No device reaches 100000 TFLOP/s or holds 100 TiB; an MFU above 1 is
    // more FLOPs than the device has.
    r.tflops_per_gpu = to_number(row["tflops"], where + ": column 'tflops'", 0, 1e5);
    r.mfu = to_number(row["mfu"], where + ": column 'mfu'", 0, 1);
    r.peak_memory_mib = to_number(row["mem_max_mib"], where + ": column 'mem_max_mib'", 0, 1e8);
    r.memory_limit_mib =
        to_number(row["mem_limit_mib"], where + ": column 'mem_limit_mib'", 0, 1e8);
    for (const char* col : {"gpu_util", "gpuutilave", "gpu_util_ave"})
      if (row.count(col))
        r.gpu_util_pct = to_number(row[col], where + ": column '" + col + "'", 0, 100);
    r.reason = row["failure_reason"];
    if (r.status == trial_status::failed) {
      r.failure = classify_failure_text(r.reason, r.blamed);
      r.confidence = r.failure == failure_kind::other ? 30 : 90;
    }
    if (t.rows.empty()) {
      t.model = row["model"];
      t.model_size = row["model_size"];
      if (!row["nnodes"].empty())
        t.nodes = parse_int_field(where + ": column 'nnodes'", row["nnodes"], {1, max_devices});
      if (!row["nproc"].empty())
        t.devices_per_node = parse_int_field(where + ": column 'nproc'", row["nproc"], {1, 1024});
      check_range(where + ": columns 'nnodes' x 'nproc'", checked_product("nnodes", {t.nodes, t.devices_per_node}),
                  {1, max_devices});
      if (!row["precision"].empty() && !parse_precision(lower(row["precision"]), t.prec))
        throw input_error(where + ": column 'precision': expected bf16, fp16 or fp8");
    }
    t.rows.push_back(r);
  }
  if (t.rows.empty())
    throw input_error(source + ": no runs in the table");
  // Rows without a memory limit (failed runs often have none) take the
  // limit seen elsewhere in the table.
  double limit = 0;
  for (const auto& r : t.rows)
    limit = std::max(limit, r.memory_limit_mib);
  for (auto& r : t.rows)
    if (r.memory_limit_mib == 0)
      r.memory_limit_mib = limit;
  return t;
}

} // namespace paratune
