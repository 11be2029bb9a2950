#include "adapters/profile/xprof_tools.hpp"

#include "core/input_error.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace paratune {

namespace {

std::string percent_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

// A KPI printed as 0.0% (or missing) is replaced by a derived value when one
// exists: real TPU overview pages print 0.0% duty cycle on a busy chip.
void fill_zero_kpi(std::optional<double>& kpi, std::optional<double> derived, const char* what,
                   const char* from, std::vector<std::string>& warnings) {
  if (!derived || (kpi && *kpi > 0))
    return;
  if (kpi)
    warnings.push_back(std::string("overview_page reports ") + what + " " + percent_text(*kpi)
                       + "; using " + percent_text(*derived) + " from " + from);
  kpi = derived;
}

std::optional<double> times100(std::optional<double> v) {
  return v ? std::optional<double>(*v * 100.0) : std::nullopt;
}

void resolve_kpis(xprof_accumulator& acc) {
  xprof_kpis& k = acc.profile.kpis;
  auto& w = acc.profile.warnings;
  k.device_duty_cycle_percent = k.reported_device_duty_cycle_percent;
  std::optional<double> from_idle;
  if (acc.op_idle_share)
    from_idle = 100.0 * (1.0 - *acc.op_idle_share);
  fill_zero_kpi(k.device_duty_cycle_percent, from_idle, "device duty cycle",
                "op_profile (100% - IDLE share)", w);
  if (k.compute_time_avg_ms && k.idle_time_avg_ms
      && *k.compute_time_avg_ms + *k.idle_time_avg_ms > 0) {
    double v = 100.0 * *k.compute_time_avg_ms / (*k.compute_time_avg_ms + *k.idle_time_avg_ms);
    fill_zero_kpi(k.device_duty_cycle_percent, v, "device duty cycle",
                  "the step table (compute / (compute + idle))", w);
  }
  fill_zero_kpi(k.flops_utilization_percent, times100(acc.op_root_flops),
                "FLOP rate utilization", "op_profile root flops", w);
  fill_zero_kpi(k.flops_utilization_percent, times100(acc.roofline_program_flops),
                "FLOP rate utilization", "roofline_model program row", w);
  fill_zero_kpi(k.hbm_bw_utilization_percent, times100(acc.op_root_hbm_bw),
                "HBM bandwidth utilization", "op_profile root bandwidthUtils[0]", w);
  fill_zero_kpi(k.hbm_bw_utilization_percent, times100(acc.roofline_program_hbm_bw),
                "HBM bandwidth utilization", "roofline_model program row", w);
  if (!k.collectives_time_percent)
    k.collectives_time_percent = times100(acc.op_collective_share);
}

// hlo_stats and framework_op_stats give rates, not utilisations.
void fill_utilizations(std::vector<xprof_op>& ops, const xprof_roofline_peaks& peaks) {
  for (auto& o : ops) {
    if (!o.flops_utilization && o.flop_rate_gflops && peaks.peak_flop_rate_gflops
        && *peaks.peak_flop_rate_gflops > 0)
      o.flops_utilization = *o.flop_rate_gflops / *peaks.peak_flop_rate_gflops;
    if (!o.hbm_bw_utilization && o.hbm_bw_gibps && peaks.peak_hbm_bw_gibps
        && *peaks.peak_hbm_bw_gibps > 0)
      o.hbm_bw_utilization = *o.hbm_bw_gibps / *peaks.peak_hbm_bw_gibps;
  }
}

// op_profile merges duplicates as "fusion.3 and its duplicate(s)".
std::string_view base_op_name(std::string_view name) {
  constexpr std::string_view suffix = " and its duplicate(s)";
  if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
    name.remove_suffix(suffix.size());
  return name;
}

void lend_roofline_fields(std::vector<xprof_op>& ops, const xprof_accumulator& acc) {
  for (auto& o : ops) {
    if (o.source != "op_profile")
      continue;
    auto it = acc.roofline_by_name.find(base_op_name(o.name));
    if (it == acc.roofline_by_name.end())
      continue;
    if (!it->second.bound_by.empty())
      o.bound_by = it->second.bound_by;
    o.roofline_efficiency = it->second.roofline_efficiency;
  }
}

} // namespace

std::size_t xprof_tool_rank(std::string_view tool) {
  auto it = std::find(std::begin(xprof_known_tools), std::end(xprof_known_tools), tool);
  return static_cast<std::size_t>(it - std::begin(xprof_known_tools));
}

bool is_known_xprof_tool(std::string_view tool) {
  return xprof_tool_rank(tool) < std::size(xprof_known_tools);
}

void apply_xprof_tool(std::string_view tool, std::string_view text, xprof_accumulator& acc,
                      std::string_view where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    // parse_error, and out_of_range for a number too large for a double
    // ("1e999", found by fuzz/xprof_json.cpp).
    throw input_error(std::string(where) + ": malformed JSON for " + std::string(tool) + " ("
                      + e.what() + ")");
  }
  try {
    if (tool == "overview_page")
      apply_overview_page(j, acc, where);
    else if (tool == "input_pipeline_analyzer")
      apply_input_pipeline(j, acc, where);
    else if (tool == "op_profile")
      apply_op_profile(j, acc, where);
    else if (tool == "roofline_model")
      apply_roofline_model(j, acc, where);
    else if (tool == "hlo_stats")
      apply_hlo_stats(j, acc, where);
    else if (tool == "framework_op_stats")
      apply_framework_op_stats(j, acc, where);
    else
      throw input_error(std::string(where) + ": unknown Xprof tool '" + std::string(tool) + "'");
  } catch (const nlohmann::json::exception& e) {
    // Shapes the parsers did not foresee (a string where a number was due...).
    throw input_error(std::string(where) + ": unexpected " + std::string(tool) + " content ("
                      + e.what() + ")");
  }
  acc.profile.tools.emplace_back(tool);
}

xprof_profile finish_xprof_profile(xprof_accumulator acc) {
  resolve_kpis(acc);
  xprof_profile& p = acc.profile;
  fill_utilizations(p.hlo_ops, p.peaks);
  fill_utilizations(p.framework_ops, p.peaks);
  lend_roofline_fields(p.top_ops, acc);
  if (p.top_ops.empty())
    p.top_ops = !p.roofline_ops.empty() ? p.roofline_ops
                : !p.hlo_ops.empty()    ? p.hlo_ops
                                        : acc.overview_ops;
  keep_top_ops(p.top_ops, acc.options.top_n);
  return std::move(acc.profile);
}

} // namespace paratune
