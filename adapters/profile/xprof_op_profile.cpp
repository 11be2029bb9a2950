// op_profile: a tree (root -> program or category -> category -> op -> fused
// sub-ops) whose node metrics are totals over all occurrences: rawTime in
// picoseconds, flops and bandwidthUtils as fractions of peak.
#include "adapters/profile/xprof_tools.hpp"

#include "core/input_error.hpp"
#include "core/text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace paratune {

namespace {

using nlohmann::json;

double number_field(const json& obj, const char* key) {
  if (!obj.is_object())
    return 0;
  auto it = obj.find(key);
  if (it == obj.end())
    return 0;
  if (it->is_number())
    return it->get<double>();
  if (it->is_string()) {  // proto3 JSON may print 64-bit integers as strings
    try {
      return std::stod(it->get<std::string>());
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

const json& metrics_of(const json& node) {
  static const json empty = json::object();
  auto it = node.find("metrics");
  return it != node.end() && it->is_object() ? *it : empty;
}

std::vector<double> number_array(const json& metrics, const char* key) {
  std::vector<double> out;
  auto it = metrics.find(key);
  if (it == metrics.end() || !it->is_array())
    return out;
  for (const auto& v : *it)
    out.push_back(v.is_number() ? v.get<double>() : 0.0);
  return out;
}

const json& children_of(const json& node) {
  static const json empty = json::array();
  auto it = node.find("children");
  return it != node.end() && it->is_array() ? *it : empty;
}

std::string string_field(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

bool is_idle(const json& node) {
  auto xla = node.find("xla");
  return string_field(node, "name") == "IDLE"
         || (xla != node.end() && xla->is_object() && string_field(*xla, "category") == "IDLE");
}


// MemBwType order of bandwidthUtils[].
constexpr std::array<const char*, 7> bw_names = {"HBM",       "SRAM Read",  "SRAM Write",
                                                 "CMEM Read", "CMEM Write", "VMEM Read",
                                                 "VMEM Write"};

// The resource with the highest utilisation, as roofline_model defines bound_by.
std::string derive_bound_by(double flops, const std::vector<double>& bw) {
  std::string best = "Unknown";
  double best_value = 0;
  if (flops > best_value) {
    best = "Compute";
    best_value = flops;
  }
  for (std::size_t i = 0; i < bw.size() && i < bw_names.size(); ++i)
    if (bw[i] > best_value) {
      best = bw_names[i];
      best_value = bw[i];
    }
  return best;
}

struct tree_walk {
  double total_time_ps = 0;   // root rawTime (includes IDLE)
  bool legacy_time = false;   // legacy JSON: metrics.time fractions, no rawTime
  std::vector<xprof_op> ops;
  double idle_time = 0;       // ps, or fraction when legacy_time
  double collective_time = 0; // ps, or fraction when legacy_time

  double time_of(const json& node) const {
    const json& m = metrics_of(node);
    return legacy_time ? number_field(m, "time") : number_field(m, "rawTime");
  }

  xprof_op make_op(const json& node, const std::string& parent_name) const {
    const json& m = metrics_of(node);
    xprof_op op;
    op.name = string_field(node, "name");
    op.category = string_field(node.at("xla"), "category");
    if (op.category.empty())
      op.category = parent_name;
    double t = time_of(node);
    op.raw_time_ps = legacy_time ? 0 : t;
    op.time_share = legacy_time ? t : (total_time_ps > 0 ? t / total_time_ps : 0);
    op.occurrences = static_cast<std::uint64_t>(std::max(0.0, number_field(m, "occurrences")));
    op.flops_utilization = number_field(m, "flops");
    auto bw = number_array(m, "bandwidthUtils");
    if (!bw.empty())
      op.hbm_bw_utilization = bw[0];
    op.bound_by = derive_bound_by(*op.flops_utilization, bw);
    double seconds = op.raw_time_ps * 1e-12;
    if (seconds > 0) {
      op.flop_rate_gflops = number_field(m, "rawFlops") / seconds / 1e9;
      auto bytes = number_array(m, "rawBytesAccessedArray");
      if (!bytes.empty())
        op.hbm_bw_gibps = bytes[0] / seconds / (1024.0 * 1024.0 * 1024.0);
    }
    op.source = "op_profile";
    return op;
  }

  // Op-level nodes are the first nodes carrying "xla" below the grouping
  // levels (program and/or category nodes); deeper xla nodes are fused
  // sub-ops, already counted in their parent.
  void visit(const json& node, const std::string& parent_name, bool parent_collective,
             int depth) {
    if (depth > 64)
      return;  // malformed or hostile nesting; the tree is 4-5 levels deep
    if (is_idle(node)) {
      idle_time += time_of(node);
      return;
    }
    if (node.contains("xla")) {
      ops.push_back(make_op(node, parent_name));
      if (!parent_collective && (is_xprof_collective(ops.back().name)))
        collective_time += time_of(node);
      return;
    }
    std::string name = string_field(node, "name");
    // A whole category of collectives ("all-reduce-scatter fusion") counts
    // at once, which also covers children pruned by op_profile_limit.
    bool collective_group = depth > 0 && is_xprof_collective(name);
    if (collective_group && !parent_collective)
      collective_time += time_of(node);
    for (const auto& child : children_of(node))
      if (child.is_object())
        visit(child, name, parent_collective || collective_group, depth + 1);
  }
};

const json* pick_root(const json& j) {
  // byProgram includes IDLE, so shares are of total device time (as
  // roofline_model's total_self_time_percent); byCategory is the legacy root.
  for (const char* key : {"byProgram", "byCategory", "byProgramExcludeIdle",
                          "byCategoryExcludeIdle"}) {
    auto it = j.find(key);
    if (it != j.end() && it->is_object())
      return &*it;
  }
  return nullptr;
}

} // namespace

bool is_xprof_collective(std::string_view name) {
  const std::string n = lower(std::string(name));
  for (const char* key : {"all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                          "collective", "allreduce", "allgather", "reducescatter"})
    if (n.find(key) != std::string::npos)
      return true;
  return false;
}

void apply_op_profile(const json& j, xprof_accumulator& acc, std::string_view where) {
  if (!j.is_object())
    throw input_error(std::string(where) + ": op_profile is not a JSON object");
  const json* root = pick_root(j);
  if (root == nullptr)
    throw input_error(std::string(where)
                      + ": op_profile has none of byProgram/byCategory (not an op_profile?)");
  const json& m = metrics_of(*root);
  tree_walk walk;
  walk.total_time_ps = number_field(m, "rawTime");
  walk.legacy_time = walk.total_time_ps <= 0 && m.contains("time");
  walk.visit(*root, "", false, 0);

  double total = walk.legacy_time ? number_field(m, "time") : walk.total_time_ps;
  acc.op_root_flops = number_field(m, "flops");
  auto bw = number_array(m, "bandwidthUtils");
  if (!bw.empty())
    acc.op_root_hbm_bw = bw[0];
  if (total > 0) {
    acc.op_idle_share = walk.idle_time / total;
    acc.op_collective_share = walk.collective_time / total;
  }
  if (acc.profile.kpis.device_type.empty())
    acc.profile.kpis.device_type = string_field(j, "deviceType");
  keep_top_ops(walk.ops, acc.options.top_n);
  acc.profile.top_ops = std::move(walk.ops);
}

void keep_top_ops(std::vector<xprof_op>& ops, std::size_t n) {
  std::stable_sort(ops.begin(), ops.end(), [](const xprof_op& a, const xprof_op& b) {
    return a.time_share > b.time_share;
  });
  if (ops.size() > n)
    ops.resize(n);
}

} // namespace paratune
