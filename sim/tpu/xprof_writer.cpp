// The inverse of the tool readers, kept to the fields they read (and that
// the real tools print), so that write-then-read is lossless up to xprof's
// own print precision ("%.1f%%").
#include "sim/tpu/xprof_writer.hpp"

#include "core/input_error.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <system_error>

namespace paratune {

namespace {

using nlohmann::json;
using opt = std::optional<double>;

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Xprof prints percentages as "%.1lf%%" and "unknown" when negative.
std::string percent(double v) { return v < 0 ? "unknown" : fixed(v, 1) + "%"; }

void put(json& props, const char* key, opt v, int digits, bool as_percent = false) {
  if (v)
    props[key] = as_percent ? percent(*v) : fixed(*v, digits);
}

json column(const char* id, const char* label, const char* type) {
  return {{"id", id}, {"label", label}, {"type", type}};
}

json cell(const json& v) { return {{"v", v}}; }

json table(json cols, json rows, json props) {
  json t = {{"cols", std::move(cols)}, {"rows", std::move(rows)}};
  if (!props.empty())
    t["p"] = std::move(props);
  return t;
}

// Total profiled time in ps, recovered from any op that has both a raw time
// and a share; the readers derive shares as raw / total.
double total_time_ps(const xprof_profile& p) {
  for (const auto* list : {&p.top_ops, &p.roofline_ops, &p.hlo_ops})
    for (const auto& o : *list)
      if (o.raw_time_ps > 0 && o.time_share > 0)
        return o.raw_time_ps / o.time_share;
  if (p.kpis.step_time_avg_ms)
    return *p.kpis.step_time_avg_ms * 1e9;
  return 1e12;
}

double raw_time(const xprof_op& o, double total) {
  return o.raw_time_ps > 0 ? o.raw_time_ps : o.time_share * total;
}

json analysis_table(const xprof_profile& p) {
  const xprof_kpis& k = p.kpis;
  json props = json::object();
  put(props, "device_duty_cycle_percent",
      k.device_duty_cycle_percent ? k.device_duty_cycle_percent
                                  : k.reported_device_duty_cycle_percent,
      1, true);
  put(props, "device_idle_time_percent", k.device_idle_percent, 1, true);
  put(props, "host_idle_time_percent", k.host_idle_percent, 1, true);
  put(props, "mxu_utilization_percent", k.mxu_utilization_percent, 1, true);
  put(props, "flop_rate_utilization_relative_to_roofline", k.flops_utilization_percent, 1, true);
  put(props, "memory_bw_utilization_relative_to_hw_limit", k.hbm_bw_utilization_percent, 1,
      true);
  put(props, "hbm_utilization_percent", k.hbm_bw_utilization_percent, 1, true);
  put(props, "program_goodput_percent", k.program_goodput_percent, 1, true);
  json rows = json::array();
  double cumulative = 0;
  for (const auto& o : p.top_ops) {
    cumulative += o.time_share;
    rows.push_back({{"c",
                     {cell(o.time_share), cell(cumulative), cell(o.category), cell(o.name),
                      cell(o.flop_rate_gflops.value_or(0))}}});
  }
  return table({column("selfTimePercent", "Time (%)", "number"),
                column("cumulativeTimePercent", "Cumulative time (%)", "number"),
                column("category", "Category", "string"),
                column("operation", "Operation", "string"),
                column("flopRate", "GFLOPs/sec", "number")},
               std::move(rows), std::move(props));
}

json step_table(const xprof_profile& p) {
  const xprof_kpis& k = p.kpis;
  json props = {{"hardware_type", k.device_type.rfind("GPU", 0) == 0 ? "GPU" : "TPU"}};
  put(props, "steptime_ms_average", k.step_time_avg_ms, 1);
  put(props, "steptime_ms_standard_deviation", k.step_time_stddev_ms, 1);
  put(props, "steptime_ms_minimum", k.step_time_min_ms, 1);
  put(props, "steptime_ms_maximum", k.step_time_max_ms, 1);
  put(props, "infeed_percent_average", k.infeed_percent, 1);
  put(props, "tc_compute_ms_average", k.compute_time_avg_ms, 2);
  put(props, "tc_idle_ms_average", k.idle_time_avg_ms, 2);
  put(props, "device_collectives_time_ms_avg", k.collectives_time_avg_ms, 2);
  json rows = json::array();
  for (const auto& s : p.steps)
    rows.push_back({{"c",
                     {cell(s.step), cell(s.compute_ms.value_or(0)), cell(s.infeed_ms.value_or(0)),
                      cell(s.idle_ms.value_or(0))}}});
  return table({column("stepnum", "stepnum", "string"),
                column("tcComputeTimeMs", "TensorCore compute (in ms)", "number"),
                column("tcInfeedTimeMs", "TensorCore wait for input (in ms)", "number"),
                column("tcIdleTimeMs", "TensorCore idle (in ms)", "number")},
               std::move(rows), std::move(props));
}

json run_environment_table(const xprof_profile& p) {
  const xprof_kpis& k = p.kpis;
  json props = {{"is_training", "true"}};
  if (!k.device_type.empty())
    props["device_type"] = k.device_type;
  if (k.device_core_count)
    props["device_core_count"] = std::to_string(*k.device_core_count);
  if (k.host_count)
    props["host_count"] = std::to_string(*k.host_count);
  return table({column("host_id", "Host Id", "string")}, json::array(), std::move(props));
}

std::string overview_page(const xprof_profile& p) {
  json empty_table = table(json::array(), json::array(), json::object());
  json diagnostics = table({column("severity", "Severity", "string"),
                            column("message", "Message", "string")},
                           json::array(), json::object());
  json pages = {analysis_table(p), step_table(p), run_environment_table(p), empty_table,
                empty_table, json::object(), diagnostics};
  return pages.dump();
}

json metrics(double raw_ps, opt flops, opt hbm, std::uint64_t occurrences, opt gflops,
             opt hbm_gibps) {
  double seconds = raw_ps * 1e-12;
  json m = {{"rawTime", raw_ps},
            {"flops", flops.value_or(0)},
            {"bandwidthUtils", json::array({hbm.value_or(0)})},
            {"occurrences", occurrences}};
  if (gflops)
    m["rawFlops"] = *gflops * 1e9 * seconds;
  if (hbm_gibps)
    m["rawBytesAccessedArray"] = json::array({*hbm_gibps * gib * seconds});
  return m;
}

json op_node(const xprof_op& o, double total) {
  return {{"name", o.name},
          {"metrics", metrics(raw_time(o, total), o.flops_utilization, o.hbm_bw_utilization,
                              o.occurrences, o.flop_rate_gflops, o.hbm_bw_gibps)},
          {"xla", {{"category", o.category}, {"op", ""}, {"expression", ""}}},
          {"children", json::array()},
          {"numChildren", 0}};
}

// Category nodes sum their ops; utilisations are time-weighted means.
json category_node(const std::string& name, const std::vector<const xprof_op*>& ops,
                   double total) {
  double t = 0, flops = 0, hbm = 0;
  std::uint64_t occ = 0;
  json children = json::array();
  for (const auto* o : ops) {
    double r = raw_time(*o, total);
    t += r;
    flops += r * o->flops_utilization.value_or(0);
    hbm += r * o->hbm_bw_utilization.value_or(0);
    occ += o->occurrences;
    children.push_back(op_node(*o, total));
  }
  opt f = t > 0 ? opt(flops / t) : opt(0.0), h = t > 0 ? opt(hbm / t) : opt(0.0);
  return {{"name", name},
          {"metrics", metrics(t, f, h, occ, std::nullopt, std::nullopt)},
          {"children", std::move(children)},
          {"numChildren", ops.size()}};
}

std::string op_profile(const xprof_profile& p) {
  double total = total_time_ps(p);
  std::vector<std::string> order;
  std::map<std::string, std::vector<const xprof_op*>> by_category;
  for (const auto& o : p.top_ops) {
    if (!by_category.count(o.category))
      order.push_back(o.category);
    by_category[o.category].push_back(&o);
  }
  json categories = json::array();
  for (const auto& c : order)
    categories.push_back(category_node(c, by_category[c], total));
  const xprof_kpis& k = p.kpis;
  auto fraction = [](opt percent) { return percent ? opt(*percent / 100.0) : std::nullopt; };
  json program = {{"name", "program"},
                  {"metrics", metrics(total, fraction(k.flops_utilization_percent),
                                      fraction(k.hbm_bw_utilization_percent), 0, std::nullopt,
                                      std::nullopt)},
                  {"children", std::move(categories)},
                  {"numChildren", order.size()}};
  json root_children = json::array({program});
  if (k.device_duty_cycle_percent) {
    // IDLE is where op_profile keeps the time the device did nothing.
    double idle = total * (1.0 - *k.device_duty_cycle_percent / 100.0);
    program["metrics"]["rawTime"] = total - idle;
    root_children = json::array(
        {program,
         {{"name", "IDLE"},
          {"metrics", metrics(idle, 0.0, 0.0, 0, std::nullopt, std::nullopt)},
          {"xla", {{"category", "IDLE"}}},
          {"children", json::array()},
          {"numChildren", 0}}});
  }
  std::size_t root_count = root_children.size();
  json root = {{"name", "by_program"},
               {"metrics", metrics(total, fraction(k.flops_utilization_percent),
                                   fraction(k.hbm_bw_utilization_percent), 0, std::nullopt,
                                   std::nullopt)},
               {"children", std::move(root_children)},
               {"numChildren", root_count}};
  std::string device = k.device_type.empty() ? "TPU" : k.device_type.substr(0, 3);
  return json{{"byProgram", std::move(root)}, {"deviceType", device}}.dump();
}

json roofline_row(const std::string& category, const std::string& name, std::uint64_t occ,
                  double self_us, double share, opt flop_rate, opt hbm_gibps,
                  const std::string& bound_by, opt roofline_eff, opt compute_eff, opt hbm_util) {
  auto num = [](opt v) { return v ? json(*v) : json(nullptr); };
  return {{"c",
           {cell("Total"), cell(0.0), cell(category), cell(name), cell(occ), cell(self_us),
            cell(occ ? self_us / static_cast<double>(occ) : 0.0), cell(self_us),
            cell(occ ? self_us / static_cast<double>(occ) : 0.0), cell(share),
            cell(num(flop_rate)), cell(num(hbm_gibps)), cell(bound_by), cell(num(roofline_eff)),
            cell(num(compute_eff)), cell(num(hbm_util))}}};
}

std::string roofline_model(const xprof_profile& p) {
  const xprof_roofline_peaks& pk = p.peaks;
  const xprof_kpis& k = p.kpis;
  double total = total_time_ps(p);
  json props = json::object();
  if (!pk.device_type.empty() || !k.device_type.empty())
    props["device_type"] = pk.device_type.empty() ? k.device_type : pk.device_type;
  if (pk.peak_flop_rate_gflops)
    props["peak_flop_rate"] = fixed(*pk.peak_flop_rate_gflops, 3);
  if (pk.peak_hbm_bw_gibps)
    props["peak_hbm_bw"] = fixed(*pk.peak_hbm_bw_gibps, 3);
  opt ridge = pk.hbm_ridge_point;
  if (!ridge && pk.peak_flop_rate_gflops && pk.peak_hbm_bw_gibps && *pk.peak_hbm_bw_gibps > 0)
    ridge = *pk.peak_flop_rate_gflops * 1e9 / (*pk.peak_hbm_bw_gibps * gib);
  if (ridge)
    props["hbm_ridge_point"] = fixed(*ridge, 3);

  auto fraction = [](opt percent) { return percent ? opt(*percent / 100.0) : std::nullopt; };
  json rows = json::array();
  rows.push_back(roofline_row("Program", "Program", 1, total / 1e6, 1.0, std::nullopt,
                              std::nullopt, "Compute", std::nullopt,
                              fraction(k.flops_utilization_percent),
                              fraction(k.hbm_bw_utilization_percent)));
  // roofline_ops when read from a roofline_model, else the top ops. The
  // reader lends bound_by to op_profile ops from these rows by name; ops
  // without a row get it re-derived from their utilisations.
  const auto& ops = p.roofline_ops.empty() ? p.top_ops : p.roofline_ops;
  for (const auto& o : ops) {
    opt hbm = o.hbm_bw_gibps;
    if (!hbm && o.hbm_bw_utilization && pk.peak_hbm_bw_gibps)
      hbm = *o.hbm_bw_utilization * *pk.peak_hbm_bw_gibps;
    opt rate = o.flop_rate_gflops;
    if (!rate && o.flops_utilization && pk.peak_flop_rate_gflops)
      rate = *o.flops_utilization * *pk.peak_flop_rate_gflops;
    rows.push_back(roofline_row(o.category, o.name, o.occurrences, raw_time(o, total) / 1e6,
                                o.time_share, rate, hbm, o.bound_by, o.roofline_efficiency,
                                o.flops_utilization, o.hbm_bw_utilization));
  }
  json cols = {column("step", "Step", "string"),
               column("rank", "Rank", "number"),
               column("category", "Category", "string"),
               column("operation", "Operation", "string"),
               column("occurrences", "# Occurrences", "number"),
               column("total_time", "Total Time (us)", "number"),
               column("avg_time", "Avg. time (us)", "number"),
               column("total_self_time", "Total self time (us)", "number"),
               column("avg_self_time", "Avg. self time (us)", "number"),
               column("total_self_time_percent", "Total self time (%)", "number"),
               column("measured_flop_rate", "Normalized FLOP Rate (GFLOP/s)", "number"),
               column("hbm_bw", "HBM BW (GiB/s)", "number"),
               column("bound_by", "Bound by", "string"),
               column("roofline_efficiency", "Roofline efficiency (%)", "number"),
               column("compute_efficiency", "FLOP Rate / Peak (%)", "number"),
               column("max_mem_bw_utilization",
                      "Max memory BW utilization (among supported memories) (%)", "number")};
  json diagnostics = table({column("severity", "Severity", "string"),
                            column("message", "Message", "string")},
                           json::array(), json::object());
  return json::array({table(std::move(cols), std::move(rows), std::move(props)), diagnostics})
      .dump();
}

} // namespace

std::map<std::string, std::string> render_xprof_tools(const xprof_profile& p) {
  return {{"overview_page", overview_page(p)},
          {"op_profile", op_profile(p)},
          {"roofline_model", roofline_model(p)}};
}

std::vector<std::filesystem::path> write_xprof_dir(const xprof_profile& p,
                                                   const std::filesystem::path& dir,
                                                   const std::string& host) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw input_error(dir.string() + ": cannot create (" + ec.message() + ")");
  std::vector<std::filesystem::path> written;
  for (const auto& [tool, text] : render_xprof_tools(p)) {
    auto path = dir / (host.empty() ? tool + ".json" : host + "." + tool + ".json");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush())
      throw input_error(path.string() + ": cannot write");
    written.push_back(path);
  }
  return written;
}

} // namespace paratune
