#include "sim/tpu/profile_synthesis.hpp"

#include <algorithm>
#include <cmath>

#include "core/diagnosis/op_classes.hpp"

namespace paratune {

namespace {

// A fixed sequence in [0, 1): tail ops differ from each other the same way
// on every run (Weyl sequence of the golden ratio).
double spread(int i) {
  const double x = i * 0.6180339887498949;
  return x - std::floor(x);
}

synthetic_op tail_op(const char* kind, int i, double share) {
  synthetic_op op;
  op.share = share;
  op.occurrences = 8 + static_cast<std::uint64_t>(spread(i) * 120);
  const double s = spread(i + 7);
  if (std::string(kind) == "compute") {
    op.name = "fusion." + std::to_string(1000 + i);
    op.category = "convolution fusion";
    op.flops_utilization = 0.45 + 0.35 * s;
    op.hbm_utilization = 0.10 + 0.15 * s;
    op.bound_by = "Compute";
  } else if (std::string(kind) == "hbm") {
    op.name = "loop_fusion." + std::to_string(2000 + i);
    op.category = i % 2 ? "loop fusion" : "convolution fusion";
    op.flops_utilization = 0.02 + 0.15 * s;
    op.hbm_utilization = 0.55 + 0.35 * s;
    op.bound_by = "HBM";
  } else if (std::string(kind) == "unknown") {
    op.name = "custom-call." + std::to_string(3000 + i);
    op.category = "custom-call";
    op.bound_by = "Unknown";
  } else {
    static const char* names[] = {"all-reduce", "all-gather", "reduce-scatter",
                                  "collective-permute"};
    op.name = std::string(names[i % 4]) + "." + std::to_string(4000 + i);
    op.category = names[i % 4];
    op.hbm_utilization = 0.002 + 0.01 * s;
    op.bound_by = "HBM";
  }
  op.roofline_efficiency = std::max(op.flops_utilization, op.hbm_utilization);
  return op;
}

void add_split(synthetic_profile& p, const char* kind, double total, int count, int& index) {
  if (total <= 0 || count <= 0)
    return;
  // Slightly uneven shares that still sum to `total`.
  std::vector<double> w(count);
  double sum = 0;
  for (int i = 0; i < count; ++i)
    sum += w[i] = 0.7 + 0.6 * spread(index + i);
  for (int i = 0; i < count; ++i)
    p.ops.push_back(tail_op(kind, index + i, total * w[i] / sum));
  index += count;
}

} // namespace

bool is_collective_name(const std::string& name) {
  return looks_collective(name, "");
}

void fill_tail(synthetic_profile& p, const profile_tail& tail) {
  double listed = 0, listed_comm = 0;
  for (const auto& op : p.ops) {
    listed += op.share;
    if (is_collective_name(op.name))
      listed_comm += op.share;
  }
  const double idle = std::max(0.0, 1 - p.duty_cycle_percent / 100);
  const double comm = std::max(0.0, tail.comm_share - listed_comm);
  const double rest = std::max(0.0, 1 - idle - listed - comm);
  const double weights = tail.compute + tail.hbm + tail.unknown;
  // Enough ops that none of them is longer than max_share (times 1.3, the
  // largest uneven weight).
  const int n = std::max(tail.ops, int(std::ceil(rest * 1.3 / std::max(1e-9, tail.max_share))));
  int index = 0;
  for (auto [kind, w] : {std::pair{"compute", tail.compute}, std::pair{"hbm", tail.hbm},
                         std::pair{"unknown", tail.unknown}})
    if (weights > 0)
      add_split(p, kind, rest * w / weights,
                std::max(1, int(std::round(n * w / weights))), index);
  add_split(p, "comm", comm, std::max(1, tail.comm_ops), index);
}

xprof_profile to_xprof_profile(const synthetic_profile& p) {
  xprof_profile x;
  auto& k = x.kpis;
  k.step_time_avg_ms = p.step_time_ms;
  k.step_time_stddev_ms = p.step_stddev_ms;
  k.device_duty_cycle_percent = p.duty_cycle_percent;
  k.reported_device_duty_cycle_percent = p.duty_cycle_percent;
  k.infeed_percent = p.infeed_percent;
  k.device_type = p.device_type;
  if (p.cores > 0)
    k.device_core_count = p.cores;
  if (p.hosts > 0)
    k.host_count = p.hosts;
  double flops = 0, hbm = 0;
  // Total profiled time: what the listed raw times imply (xprof_writer
  // derives it the same way), else the steps the profile spans.
  double total_ps = p.step_time_ms * 1e9 * std::max(1, p.steps);
  for (const auto& s : p.ops)
    if (s.raw_time_ps > 0 && s.share > 0) {
      total_ps = s.raw_time_ps / s.share;
      break;
    }
  for (const auto& s : p.ops) {
    xprof_op op;
    op.name = s.name;
    op.category = s.category;
    op.time_share = s.share;
    op.raw_time_ps = s.raw_time_ps > 0 ? s.raw_time_ps : s.share * total_ps;
    op.occurrences = s.occurrences;
    op.flops_utilization = s.flops_utilization;
    op.hbm_bw_utilization = s.hbm_utilization;
    op.roofline_efficiency =
        s.roofline_efficiency.value_or(std::max(s.flops_utilization, s.hbm_utilization));
    op.bound_by = s.bound_by;
    op.source = "op_profile";
    flops += s.share * s.flops_utilization;
    hbm += s.share * s.hbm_utilization;
    x.top_ops.push_back(std::move(op));
  }
  std::stable_sort(x.top_ops.begin(), x.top_ops.end(),
                   [](const xprof_op& a, const xprof_op& b) { return a.time_share > b.time_share; });
  k.flops_utilization_percent = 100 * flops;
  k.hbm_bw_utilization_percent = 100 * hbm;
  k.compute_time_avg_ms = p.step_time_ms * p.duty_cycle_percent / 100;
  k.idle_time_avg_ms = p.step_time_ms - *k.compute_time_avg_ms;
  if (p.peak_flop_gflops > 0)
    x.peaks.peak_flop_rate_gflops = p.peak_flop_gflops;
  if (p.peak_hbm_gibps > 0)
    x.peaks.peak_hbm_bw_gibps = p.peak_hbm_gibps;
  x.peaks.device_type = p.device_type;
  for (int i = 0; i < std::max(1, p.steps); ++i) {
    xprof_step s;
    s.step = std::to_string(i);
    s.compute_ms = k.compute_time_avg_ms;
    s.idle_ms = k.idle_time_avg_ms;
    s.infeed_ms = p.step_time_ms * p.infeed_percent / 100;
    x.steps.push_back(s);
  }
  return x;
}

} // namespace paratune
