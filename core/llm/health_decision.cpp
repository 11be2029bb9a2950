#include "core/llm/health_decision.hpp"

#include <fmt/format.h>

#include "core/enum_words.hpp"
#include "core/llm/answer_object.hpp"
#include "core/llm/prompt_template.hpp"
#include "core/llm/strategy_prompt.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

/// The facts a state is judged by, as the built-in check words them.
std::string run_facts(const trial_outcome& run) {
  return fmt::format("MFU {:.3f}, GPU busy {}, peak memory {:.0f} MiB ({:.1f}% of {:.0f} MiB), "
                     "PP {}",
                     run.mfu,
                     run.gpu_util_pct > 0 ? fmt::format("{:.0f}%", run.gpu_util_pct)
                                          : std::string("unknown"),
                     run.peak_memory_mib, run.memory_usage_pct(), run.memory_limit_mib,
                     run.config.pp);
}

} // namespace

std::variant<proposed_health, guardrail_verdict> read_health_reading(const std::string& answer) {
  auto parsed = reasoned_object(answer);
  if (auto* bad = std::get_if<guardrail_verdict>(&parsed))
    return *bad;
  const auto& j = std::get<nlohmann::json>(parsed);
  const auto reason = j.find("reason");
  const auto h = j.find("health");
  if (h == j.end() || !h->is_string())
    return unparsable_answer("the answer has no \"health\" string");
  proposed_health out{health_state::performance_tune, reason->get<std::string>()};
  if (!parse_word_of(h->get<std::string>(),
                     {health_state::severely_underutilized, health_state::high_pp_overhead,
                      health_state::memory_bound, health_state::performance_tune},
                     out.state))
    return guardrail_verdict{guardrail_rejection::unknown_value,
                             "health '" + h->get<std::string>() + "' is not one of "
                             "SEVERELY_UNDERUTILIZED, HIGH_PP_OVERHEAD, MEMORY_BOUND, "
                             "PERFORMANCE_TUNE"};
  return out;
}

std::optional<guardrail_verdict> check_health(const trial_outcome& run, health_state named) {
  const auto refuse = [&](const std::string& rule) {
    return guardrail_verdict{guardrail_rejection::contradicts_measurement,
                             fmt::format("{} needs {}; trial measured {}", to_string(named), rule,
                                         run_facts(run))};
  };
  if (shows(named, run))
    return std::nullopt;
  switch (named) {
    case health_state::severely_underutilized:
      return refuse(fmt::format("a measured GPU busy share under {:g}% and memory under {:g}%",
                                underutilized_gpu_pct, underutilized_memory_pct));
    case health_state::high_pp_overhead:
      return refuse(fmt::format("PP above 1 and MFU under {:g}", pp_overhead_mfu));
    case health_state::memory_bound:
      return refuse(fmt::format("peak memory above {:g}% of the device", memory_bound_pct));
    case health_state::performance_tune:
      break;
  }
  return std::nullopt;
}

const nlohmann::json& health_reading_schema() {
  static const nlohmann::json schema = {
    {"type", "object"},
    {"properties", {{"health", {{"type", "string"}}}, {"reason", {{"type", "string"}}}}},
    {"required", {"health", "reason"}},
    {"additionalProperties", false}};
  return schema;
}

health_decision read_health_with_llm(const std::string& prompt_template,
                                     const std::string& job_label, const tuning_context& ctx,
                                     const std::vector<trial_outcome>& history,
                                     const analysis& builtin, const chat_fn& chat) {
  health_decision d;
  if (builtin.base_trial < 0 || size_t(builtin.base_trial) >= history.size()
      || !history[size_t(builtin.base_trial)].ran())
    return d;
  const auto& run = history[size_t(builtin.base_trial)];
  auto messages = render_prompt(
    prompt_template,
    {{"job", job_label},
     {"history", history_table(ctx, history)},
     {"trial", std::to_string(builtin.base_number)},
     {"config", searched_values(ctx, run.config)},
     {"facts", run_facts(run)},
     {"builtin", fmt::format("{} (directive {}): {}", to_string(builtin.health.state),
                             directive_of(builtin.health.state), builtin.health.reasoning)}});
  auto answer = ask_with_guardrails<proposed_health>(
    std::move(messages), health_reading_schema(), chat,
    read_then_check<proposed_health>(read_health_reading, [&](const proposed_health& h) {
      return check_health(run, h.state);
    }));
  d.turns = std::move(answer.turns);
  if (!answer.accepted) {
    d.fallback = answer.fallback;
    return d;
  }
  d.health = health_diagnosis{answer.accepted->state,
                              fmt::format("{}: the model's reading: {} (checked against the "
                                          "run's numbers; built-in: {})",
                                          run_facts(run), answer.accepted->reason,
                                          to_string(builtin.health.state))};
  return d;
}

} // namespace paratune
