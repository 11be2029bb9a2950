#include "actors/model_turn.hpp"

#include <spdlog/spdlog.h>

#include "actors/llm_exchanges.hpp"
#include "adapters/llm/model_chat.hpp"
#include "core/llm/health_decision.hpp"
#include "core/llm/strategy_prompt.hpp"
#include "messages/conversions.hpp"

namespace paratune {

std::vector<wire::llm_exchange> model_turn(const wire::session_opened& opened,
                                           const tuning_context& ctx,
                                           const std::vector<trial_outcome>& history,
                                           const std::vector<pending_trial>& pending,
                                           analysis& a, int after_trial, int request) {
  const auto settings = wire::reasoners_of(opened).of(reasoning_agent::strategy_generation);
  const auto mode = settings.mode;
  if (mode == reasoner_mode::builtin)
    return {};
  const auto& prompt = mode == reasoner_mode::hybrid ? opened.ranking_prompt
                                                     : opened.generation_prompt;
  const auto d = decide_with_llm(mode, prompt, opened.job_name, ctx, history, pending, a,
                                 model_chat(settings));
  if (!d.chosen && !d.fallback.empty())
    spdlog::warn("strategy generation: job {} after trial {}: {}", opened.job_name, after_trial,
                 d.fallback);
  apply_decision(a, mode, d);
  return exchanges_of(d.turns, reasoning_agent::strategy_generation, mode, after_trial, request,
                      d.chosen.has_value());
}

std::vector<wire::llm_exchange> health_turn(const wire::session_opened& opened,
                                            const tuning_context& ctx,
                                            const std::vector<trial_outcome>& history,
                                            const std::vector<pending_trial>& pending,
                                            runnable_space* space, analysis& a, int after_trial,
                                            int request) {
  const auto settings = wire::reasoners_of(opened).of(reasoning_agent::bottleneck_analysis);
  if (settings.mode == reasoner_mode::builtin)
    return {};
  const auto d = read_health_with_llm(opened.health_prompt, job_label(opened.job_name, ctx), ctx,
                                      history, a, model_chat(settings));
  if (d.health && d.health->state != a.health.state) {
    a = analyze(ctx, history, pending, space, &*d.health);
  } else if (d.health) {
    a.health.reasoning += " The model agrees: " + d.health->reasoning;
    a.reasoning = "Health (the model agrees): " + d.health->reasoning + "\n" + a.reasoning;
  } else if (!d.fallback.empty()) {
    spdlog::warn("bottleneck analysis: job {} after trial {}: {}", opened.job_name, after_trial,
                 d.fallback);
    a.reasoning = "Health: Model: " + d.fallback + "; the built-in reading stands.\n"
                  + a.reasoning;
  }
  return exchanges_of(d.turns, reasoning_agent::bottleneck_analysis, settings.mode, after_trial,
                      request, d.health.has_value());
}

} // namespace paratune
