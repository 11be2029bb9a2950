#pragma once

#include "adapters/profile/xprof_profile.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace paratune {

/// How much of each operation list to keep.
struct xprof_read_options {
  std::size_t top_n = 20;
};

/// The tools whose JSON this reader understands, in the order they are
/// applied: the overview's own KPIs first, the op lists' fallbacks later.
inline constexpr std::string_view xprof_known_tools[] = {
    "overview_page", "input_pipeline_analyzer", "roofline_model", "op_profile",
    "hlo_stats", "framework_op_stats"};

/// Position of `tool` in xprof_known_tools (its size when unknown).
std::size_t xprof_tool_rank(std::string_view tool);

/// True for a tool name in xprof_known_tools.
bool is_known_xprof_tool(std::string_view tool);

/// What the per-tool parsers collect. Tools are applied in any order; the
/// KPI fallbacks (a 0.0% duty cycle replaced by op_profile's idle share, ...)
/// are resolved once by finish_xprof_profile().
struct xprof_accumulator {
  xprof_read_options options;
  xprof_profile profile;
  // op_profile root totals, fractions 0-1.
  std::optional<double> op_root_flops;
  std::optional<double> op_root_hbm_bw;
  std::optional<double> op_idle_share;
  std::optional<double> op_collective_share;
  // roofline_model's whole-program row, fractions 0-1.
  std::optional<double> roofline_program_flops;
  std::optional<double> roofline_program_hbm_bw;
  // Every roofline "Total" row by op name, to lend bound_by to op_profile ops.
  std::map<std::string, xprof_op, std::less<>> roofline_by_name;
  // overview_page's own top-ops table: the last resort for top_ops.
  std::vector<xprof_op> overview_ops;
};

/// Per-tool parsers. `where` names the source (file or URL) in errors; each
/// throws input_error when the JSON does not have the tool's shape.
void apply_overview_page(const nlohmann::json& j, xprof_accumulator& acc, std::string_view where);
void apply_input_pipeline(const nlohmann::json& j, xprof_accumulator& acc, std::string_view where);
void apply_op_profile(const nlohmann::json& j, xprof_accumulator& acc, std::string_view where);
void apply_roofline_model(const nlohmann::json& j, xprof_accumulator& acc, std::string_view where);
void apply_hlo_stats(const nlohmann::json& j, xprof_accumulator& acc, std::string_view where);
void apply_framework_op_stats(const nlohmann::json& j, xprof_accumulator& acc,
                              std::string_view where);

/// Parses `text` as JSON and applies it as `tool`. Throws input_error naming
/// `where` on malformed JSON or an unknown tool.
void apply_xprof_tool(std::string_view tool, std::string_view text, xprof_accumulator& acc,
                      std::string_view where);

/// Resolves KPI fallbacks, fills utilisations from the roofline peaks and
/// chooses top_ops. Call once, after every tool was applied.
xprof_profile finish_xprof_profile(xprof_accumulator acc);

/// True for an op or category name of interconnect work (all-reduce,
/// all-gather, reduce-scatter, all-to-all, collective-permute, ...): Xprof has
/// no ICI bound-by, so collectives are found by name.
bool is_xprof_collective(std::string_view name);

/// Sorts longest first and keeps the first `n`.
void keep_top_ops(std::vector<xprof_op>& ops, std::size_t n);

} // namespace paratune
