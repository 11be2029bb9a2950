#include "core/llm/strategy_prompt.hpp"

#include <fmt/format.h>

#include "core/llm/prompt_template.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

std::string current_text(const tuning_context& ctx, const std::vector<trial_outcome>& history,
                         const analysis& a) {
  std::string out = searched_values(ctx, a.base);
  if (a.base_trial >= 0 && size_t(a.base_trial) < history.size()) {
    const auto& r = history[a.base_trial];
    out += fmt::format(" (trial {}: {:.1f} TFLOP/s/GPU, MFU {:.3f}, peak memory {:.0f}% of the "
                       "device)", a.base_number, r.tflops_per_gpu, r.mfu, r.memory_usage_pct());
  } else {
    out += " (the job's initial configuration; nothing has run yet)";
  }
  return out;
}

std::string space_text(const tuning_context& ctx) {
  std::string out;
  for (const auto& [key, values] : ctx.search)
    out += "- " + key + ": " + join(values, ", ") + "\n";
  return out;
}

std::string candidates_text(const analysis& a, int offered) {
  std::string out;
  for (int i = 0; i < offered && size_t(i) < a.ranked.size(); ++i) {
    const auto& s = a.ranked[size_t(i)];
    out += fmt::format("{}. {} Expected {:.1f} TFLOP/s/GPU (+-{:.0f}%), peak {:.0f} MiB. Why: "
                       "{}.\n", i + 1, s.text, s.predicted_tflops, 100 * s.uncertainty,
                       s.predicted_peak_mib, s.why);
  }
  return out;
}

} // namespace

std::string history_table(const tuning_context& ctx, const std::vector<trial_outcome>& history) {
  if (history.empty())
    return "(no trial yet)\n";
  std::string out = "| trial | configuration | status | TFLOP/s/GPU | MFU | peak memory | note |\n"
                    "|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < history.size(); ++i) {
    const auto& r = history[i];
    const bool ran = r.ran();
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", trial_number(history, i),
                       searched_values(ctx, r.config), to_string(r.status),
                       ran ? fmt::format("{:.1f}", r.tflops_per_gpu) : "-",
                       ran ? fmt::format("{:.3f}", r.mfu) : "-",
                       r.memory_limit_mib > 0 && r.peak_memory_mib > 0
                           ? fmt::format("{:.0f}%", r.memory_usage_pct()) : "-",
                       ran ? "" : (r.failure != failure_kind::none
                                       ? std::string(to_string(r.failure)) + ": " + r.reason
                                       : r.reason));
  }
  return out;
}

std::vector<chat_message> strategy_prompt(const std::string& template_text,
                                          const std::string& job_name,
                                          const tuning_context& ctx,
                                          const std::vector<trial_outcome>& history,
                                          const analysis& builtin, int offered) {
  return render_prompt(
    template_text,
    {{"job", job_label(job_name, ctx)},
     {"history", history_table(ctx, history)},
     {"current", current_text(ctx, history, builtin)},
     {"health", std::string(to_string(builtin.health.state)) + ": " + builtin.health.reasoning},
     {"search_space", space_text(ctx)},
     {"candidates", candidates_text(builtin, offered)}});
}

std::string job_label(const std::string& job_name, const tuning_context& ctx) {
  return job_name + " (" + ctx.model.name + " on " + std::to_string(ctx.world_size) + " GPUs)";
}

std::string searched_values(const tuning_context& ctx, const training_config& c) {
  std::string out;
  for (const auto& [key, values] : ctx.search)
    out += (out.empty() ? "" : " ") + key + "=" + get_value(c, key);
  return out;
}

} // namespace paratune
