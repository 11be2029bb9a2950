// overview_page and input_pipeline_analyzer: DataTables whose properties carry
// the KPIs ("15.7%", "96.3") and whose rows carry the per-step breakdown.
#include "adapters/profile/gviz_table.hpp"
#include "adapters/profile/xprof_tools.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace paratune {

namespace {

using opt = std::optional<double>;

void set_if_unset(opt& field, opt value) {
  if (!field && value)
    field = value;
}

const gviz_table* find_table_with_prop(const std::vector<gviz_table>& tables,
                                       std::initializer_list<std::string_view> keys) {
  for (const auto& t : tables)
    for (auto k : keys)
      if (t.prop(k))
        return &t;
  return nullptr;
}

// First present column among `ids` (TPU, legacy and GPU spell them differently).
std::optional<std::size_t> first_column(const gviz_table& t,
                                        std::initializer_list<std::string_view> ids) {
  for (auto id : ids)
    if (auto c = t.column(id))
      return c;
  return std::nullopt;
}

void apply_analysis(const gviz_table& t, xprof_accumulator& acc) {
  xprof_kpis& k = acc.profile.kpis;
  set_if_unset(k.reported_device_duty_cycle_percent, t.prop_number("device_duty_cycle_percent"));
  set_if_unset(k.device_idle_percent, t.prop_number("device_idle_time_percent"));
  set_if_unset(k.host_idle_percent, t.prop_number("host_idle_time_percent"));
  set_if_unset(k.mxu_utilization_percent, t.prop_number("mxu_utilization_percent"));
  set_if_unset(k.flops_utilization_percent,
               t.prop_number("flop_rate_utilization_relative_to_roofline"));
  // HEAD prints hbm_utilization_percent; older servers only the roofline-relative one.
  set_if_unset(k.hbm_bw_utilization_percent, t.prop_number("hbm_utilization_percent"));
  set_if_unset(k.hbm_bw_utilization_percent,
               t.prop_number("memory_bw_utilization_relative_to_hw_limit"));
  set_if_unset(k.program_goodput_percent, t.prop_number("program_goodput_percent"));

  // Its rows are overview's own top-ops list (selfTimePercent is a fraction).
  auto share = t.column("selfTimePercent");
  auto name = t.column("operation");
  auto category = t.column("category");
  auto rate = t.column("flopRate");
  if (!share || !name)
    return;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    xprof_op op;
    op.name = t.text(r, name).value_or("");
    op.category = t.text(r, category).value_or("");
    op.time_share = t.number(r, share).value_or(0);
    op.flop_rate_gflops = t.number(r, rate);
    op.source = "overview_page";
    acc.overview_ops.push_back(std::move(op));
  }
}

void apply_step_rows(const gviz_table& t, xprof_accumulator& acc) {
  if (!acc.profile.steps.empty())
    return;  // overview_page and input_pipeline carry the same table; keep the first
  auto stepnum = t.column("stepnum");
  auto compute = first_column(t, {"tcComputeTimeMs", "computeTimeMs", "deviceComputeTimeMs"});
  auto idle = first_column(t, {"tcIdleTimeMs", "idleTimeMs"});
  auto infeed = first_column(t, {"tcInfeedTimeMs", "inputTimeMs", "infeedTimeMs"});
  auto total = first_column(t, {"stepTimeMs"});
  if (!stepnum)
    return;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    xprof_step s;
    s.step = t.text(r, stepnum).value_or("");
    s.compute_ms = t.number(r, compute);
    s.idle_ms = t.number(r, idle);
    s.infeed_ms = t.number(r, infeed);
    s.step_ms = t.number(r, total);
    if (!s.step_ms && (s.compute_ms || s.idle_ms || s.infeed_ms))
      s.step_ms = s.compute_ms.value_or(0) + s.idle_ms.value_or(0) + s.infeed_ms.value_or(0);
    acc.profile.steps.push_back(std::move(s));
  }
}

void apply_step_table(const gviz_table& t, xprof_accumulator& acc) {
  xprof_kpis& k = acc.profile.kpis;
  set_if_unset(k.step_time_avg_ms, t.prop_number("steptime_ms_average"));
  set_if_unset(k.step_time_stddev_ms, t.prop_number("steptime_ms_standard_deviation"));
  set_if_unset(k.step_time_min_ms, t.prop_number("steptime_ms_minimum"));
  set_if_unset(k.step_time_max_ms, t.prop_number("steptime_ms_maximum"));
  set_if_unset(k.infeed_percent, t.prop_number("infeed_percent_average"));
  set_if_unset(k.compute_time_avg_ms, t.prop_number("tc_compute_ms_average"));
  set_if_unset(k.compute_time_avg_ms, t.prop_number("device_compute_time_ms_avg"));
  set_if_unset(k.compute_time_avg_ms, t.prop_number("compute_ms_average"));
  set_if_unset(k.idle_time_avg_ms, t.prop_number("tc_idle_ms_average"));
  set_if_unset(k.idle_time_avg_ms, t.prop_number("idle_ms_average"));
  set_if_unset(k.collectives_time_avg_ms, t.prop_number("device_collectives_time_ms_avg"));
  // Legacy pages give input time in ms instead of an infeed percentage.
  auto input_ms = t.prop_number("input_ms_average");
  if (!k.infeed_percent && input_ms && k.step_time_avg_ms && *k.step_time_avg_ms > 0)
    k.infeed_percent = 100.0 * *input_ms / *k.step_time_avg_ms;
  apply_step_rows(t, acc);
}

// "16 (Replica count = 1, num cores per replica = 16)" -> 16.
std::optional<int> leading_int(const gviz_table& t, std::string_view key) {
  auto v = t.prop_number(key);
  if (!v || *v < 0 || *v > 1e9)
    return std::nullopt;
  return static_cast<int>(std::lround(*v));
}

void apply_run_environment(const gviz_table& t, xprof_accumulator& acc) {
  xprof_kpis& k = acc.profile.kpis;
  if (k.device_type.empty())
    k.device_type = t.prop("device_type").value_or("");
  if (!k.device_core_count)
    k.device_core_count = leading_int(t, "device_core_count");
  if (!k.host_count)
    k.host_count = leading_int(t, "host_count");
}

} // namespace

void apply_overview_page(const nlohmann::json& j, xprof_accumulator& acc, std::string_view where) {
  auto tables = parse_gviz_tables(j, where);
  // Tables are found by their properties, not positions: the layout changed
  // across versions (legacy pages have 4 tables, current ones 7).
  if (auto t = find_table_with_prop(tables, {"mxu_utilization_percent", "device_idle_time_percent",
                                             "device_duty_cycle_percent"}))
    apply_analysis(*t, acc);
  if (auto t = find_table_with_prop(tables, {"steptime_ms_average"}))
    apply_step_table(*t, acc);
  if (auto t = find_table_with_prop(tables, {"device_type", "device_core_count"}))
    apply_run_environment(*t, acc);
}

void apply_input_pipeline(const nlohmann::json& j, xprof_accumulator& acc,
                          std::string_view where) {
  auto tables = parse_gviz_tables(j, where);
  if (auto t = find_table_with_prop(tables, {"steptime_ms_average"}))
    apply_step_table(*t, acc);
}

} // namespace paratune
