// roofline_model, hlo_stats and framework_op_stats: one DataTable row per op.
// Their percent columns differ: fractions in roofline_model and
// framework_op_stats, 0-100 in hlo_stats.
#include "adapters/profile/gviz_table.hpp"
#include "adapters/profile/xprof_tools.hpp"

#include "core/input_error.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace paratune {

namespace {

constexpr double us_to_ps = 1e6;

std::uint64_t count_of(const gviz_table& t, std::size_t r, std::optional<std::size_t> c) {
  auto v = t.number(r, c);
  return v && *v > 0 ? static_cast<std::uint64_t>(std::llround(*v)) : 0;
}

const gviz_table* find_table_with_column(const std::vector<gviz_table>& tables,
                                         std::string_view id) {
  for (const auto& t : tables)
    if (t.column(id))
      return &t;
  return nullptr;
}

void require_columns(const gviz_table& t, std::initializer_list<std::string_view> ids,
                     std::string_view tool, std::string_view where) {
  for (auto id : ids)
    if (!t.column(id))
      throw input_error(std::string(where) + ": " + std::string(tool) + " table lacks column '"
                        + std::string(id) + "'");
}

void apply_roofline_peaks(const gviz_table& t, xprof_accumulator& acc) {
  xprof_roofline_peaks& p = acc.profile.peaks;
  p.peak_flop_rate_gflops = t.prop_number("peak_flop_rate");
  p.peak_hbm_bw_gibps = t.prop_number("peak_hbm_bw");
  p.hbm_ridge_point = t.prop_number("hbm_ridge_point");
  p.device_type = t.prop("device_type").value_or("");
  if (acc.profile.kpis.device_type.empty())
    acc.profile.kpis.device_type = p.device_type;
}

} // namespace

void apply_roofline_model(const nlohmann::json& j, xprof_accumulator& acc,
                          std::string_view where) {
  auto tables = parse_gviz_tables(j, where);
  const gviz_table* t = find_table_with_column(tables, "bound_by");
  if (t == nullptr)
    throw input_error(std::string(where) + ": roofline_model has no table with a 'bound_by' column");
  require_columns(*t, {"step", "operation", "total_self_time_percent"}, "roofline_model", where);
  apply_roofline_peaks(*t, acc);
  auto step = t->column("step"), category = t->column("category"), op = t->column("operation");
  auto occ = t->column("occurrences"), self_time = t->column("total_self_time");
  auto share = t->column("total_self_time_percent"), bound = t->column("bound_by");
  auto flops = t->column("compute_efficiency"), rate = t->column("measured_flop_rate");
  auto hbm = t->column("hbm_bw"), eff = t->column("roofline_efficiency");
  auto max_bw = t->column("max_mem_bw_utilization");
  std::optional<double> peak_bw = acc.profile.peaks.peak_hbm_bw_gibps;

  std::vector<xprof_op> ops;
  for (std::size_t r = 0; r < t->rows.size(); ++r) {
    // "Total" rows aggregate the whole profile; per-step and "Average" rows repeat them.
    if (t->text(r, step).value_or("") != "Total")
      continue;
    std::string cat = t->text(r, category).value_or("");
    if (cat == "Program") {  // the whole-program summary row
      acc.roofline_program_flops = t->number(r, flops);
      acc.roofline_program_hbm_bw = t->number(r, max_bw);
      continue;
    }
    xprof_op o;
    o.name = t->text(r, op).value_or("");
    o.category = cat;
    o.time_share = t->number(r, share).value_or(0);
    o.raw_time_ps = t->number(r, self_time).value_or(0) * us_to_ps;
    o.occurrences = count_of(*t, r, occ);
    o.flops_utilization = t->number(r, flops);
    o.flop_rate_gflops = t->number(r, rate);
    o.hbm_bw_gibps = t->number(r, hbm);
    if (o.hbm_bw_gibps && peak_bw && *peak_bw > 0)
      o.hbm_bw_utilization = *o.hbm_bw_gibps / *peak_bw;
    o.bound_by = t->text(r, bound).value_or("");
    o.roofline_efficiency = t->number(r, eff);
    o.source = "roofline_model";
    acc.roofline_by_name.emplace(o.name, o);
    ops.push_back(std::move(o));
  }
  keep_top_ops(ops, acc.options.top_n);
  acc.profile.roofline_ops = std::move(ops);
}

void apply_hlo_stats(const nlohmann::json& j, xprof_accumulator& acc, std::string_view where) {
  auto tables = parse_gviz_tables(j, where);
  const gviz_table* t = find_table_with_column(tables, "hlo_op_name");
  if (t == nullptr)
    throw input_error(std::string(where) + ": hlo_stats has no table with an 'hlo_op_name' column");
  require_columns(*t, {"total_self_time_percent"}, "hlo_stats", where);
  auto category = t->column("category"), op = t->column("hlo_op_name");
  auto occ = t->column("occurrences"), self_time = t->column("total_self_time");
  auto share = t->column("total_self_time_percent"), bound = t->column("bound_by");
  auto rate = t->column("normalized_flop_rate"), hbm = t->column("hbm_bw");

  std::vector<xprof_op> ops;
  for (std::size_t r = 0; r < t->rows.size(); ++r) {
    xprof_op o;
    o.name = t->text(r, op).value_or("");
    o.category = t->text(r, category).value_or("");
    o.time_share = t->number(r, share).value_or(0) / 100.0;  // 0-100 in this tool
    o.raw_time_ps = t->number(r, self_time).value_or(0) * us_to_ps;
    o.occurrences = count_of(*t, r, occ);
    o.flop_rate_gflops = t->number(r, rate);
    o.hbm_bw_gibps = t->number(r, hbm);
    o.bound_by = t->text(r, bound).value_or("");
    o.source = "hlo_stats";
    ops.push_back(std::move(o));
  }
  keep_top_ops(ops, acc.options.top_n);
  acc.profile.hlo_ops = std::move(ops);
}

void apply_framework_op_stats(const nlohmann::json& j, xprof_accumulator& acc,
                              std::string_view where) {
  auto tables = parse_gviz_tables(j, where);
  // The first table includes IDLE in the denominator, the second excludes it.
  const gviz_table* t = find_table_with_column(tables, "device_total_self_time_percent");
  if (t == nullptr)
    throw input_error(std::string(where)
                      + ": framework_op_stats has no 'device_total_self_time_percent' column");
  auto where_col = t->column("host_or_device"), type = t->column("type");
  auto op = t->column("operation"), occ = t->column("occurrences");
  auto self_time = t->column("total_self_time");
  auto share = t->column("device_total_self_time_percent"), bound = t->column("bound_by");
  auto rate = t->column("model_flop_rate");

  std::vector<xprof_op> ops;
  for (std::size_t r = 0; r < t->rows.size(); ++r) {
    if (t->text(r, where_col).value_or("Device") != "Device")
      continue;
    xprof_op o;
    o.name = t->text(r, op).value_or("");
    o.category = t->text(r, type).value_or("");
    o.time_share = t->number(r, share).value_or(0);
    o.raw_time_ps = t->number(r, self_time).value_or(0) * us_to_ps;
    o.occurrences = count_of(*t, r, occ);
    o.flop_rate_gflops = t->number(r, rate);
    o.bound_by = t->text(r, bound).value_or("");
    o.source = "framework_op_stats";
    ops.push_back(std::move(o));
  }
  keep_top_ops(ops, acc.options.top_n);
  acc.profile.framework_ops = std::move(ops);
}

} // namespace paratune
