#include "actors/model_turn.hpp"

#include <spdlog/spdlog.h>

#include "actors/llm_exchanges.hpp"
#include "adapters/llm/model_chat.hpp"
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

} // namespace paratune
