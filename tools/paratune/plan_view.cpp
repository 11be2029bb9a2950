#include "tools/paratune/plan_view.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "core/model_flops_utilization.hpp"
#include "core/perf/memory_verdict.hpp"
#include "core/training_config.hpp"

namespace paratune::cli {

namespace {

// The keys worth a column: the structural ones always, cp/ep/vpp when the
// space varies them or the base sets them.
std::vector<std::string> column_keys(const plan_request& r) {
  std::vector<std::string> keys = {"tp", "pp"};
  for (const char* k : {"cp", "ep", "vpp"})
    if ((r.space.count(k) && r.space.at(k).size() > 1) || get_value(r.base, k) != "1")
      keys.push_back(k);
  keys.insert(keys.end(), {"mbs", "recompute"});
  return keys;
}

// The rest of the configuration in a few words: the flags that are on and
// the layer counts that are set.
std::string flags_text(const training_config& c) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  if (c.recompute == recompute_mode::full && c.recompute_layers > 0)
    add(std::string(c.recompute_block ? "block" : "uniform") + ":"
        + std::to_string(c.recompute_layers));
  for (const auto& k : config_keys())  // the true/false keys that are on
    if (get_value(c, k) == "true")
      add(k);
  if (c.first_pp_layers > 0)
    add("first=" + std::to_string(c.first_pp_layers));
  if (c.last_pp_layers > 0)
    add("last=" + std::to_string(c.last_pp_layers));
  return out.empty() ? "-" : out;
}

} // namespace

void write_plan_table(std::ostream& out, const plan_request& r, const plan_result& res) {
  const auto keys = column_keys(r);
  int width = 5;
  for (const auto& t : res.top)
    width = std::max(width, static_cast<int>(flags_text(t.config).size()));
  // Numbers right-aligned with an explicit '>', as printf wrote them (fmt 9
  // would left-align inf and nan); text columns left-aligned with '<'.
  std::string head = "rank";
  for (const auto& k : keys)
    head += k == "recompute" ? "  recompute" : fmt::format(" {:>4}", k);
  out << head << fmt::format("  {:<{}} {:>8} {:>9} {:>8} {:>6} {:>9} {:<6}  {}\n", "flags",
                             width, "variants", "tokens/s", "TFLOP/s", "MFU", "peak MiB",
                             "memory", "limiting");
  int rank = 0;
  for (const auto& t : res.top) {
    std::string line = fmt::format("{:>4}", ++rank);
    for (const auto& k : keys)
      line += k == "recompute" ? fmt::format("  {:<9}", get_value(t.config, k))
                               : fmt::format(" {:>4}", get_value(t.config, k));
    const auto& p = t.prediction;
    out << line << fmt::format("  {:<{}} {:>8} {:>9.0f} {:>8.1f} {:>6} {:>9.0f} {:<6}  {}\n",
                               flags_text(t.config), width, t.variants,
                               p.tokens_per_s_per_gpu, p.tflops_per_gpu, mfu_text(p.mfu),
                               p.peak_memory_mib, memory_verdict_words(p.memory),
                               p.limiting_factor);
  }
}


} // namespace paratune::cli
