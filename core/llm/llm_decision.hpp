#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/llm/guarded_ask.hpp"
#include "core/reasoner_settings.hpp"
#include "core/tuning/reasoner.hpp"

namespace paratune {

/// What the model decided, and everything it took to get there (stored in
/// the pool, shown by the report).
struct llm_decision {
  std::vector<llm_turn> turns;
  std::optional<suggestion> chosen;  ///< the model's choice, when one passed the guardrails
  std::string fallback;              ///< why the built-in choice stands; empty when chosen
};

/// The JSON schemas of the two answers (llm: a configuration; hybrid: a ranking).
const nlohmann::json& proposal_schema();
const nlohmann::json& ranking_schema();

/// How many of the built-in candidates a hybrid prompt offers.
constexpr int hybrid_offered = 5;

/// The model's turn after the built-in analysis `builtin`. llm: the model
/// proposes a configuration; hybrid: it ranks the built-in reasoner's first
/// candidates. Every answer goes through the guardrails (model_answer.hpp,
/// guardrail.hpp); a refused one is put to the model once more with the
/// reason, and a second refusal, a model that does not answer, or an
/// exhausted analysis leave the built-in choice standing. The job's initial
/// configuration, when it is trial 1, is not put to the model.
llm_decision decide_with_llm(reasoner_mode mode, const std::string& prompt_template,
                             const std::string& job_name, const tuning_context& ctx,
                             const std::vector<trial_outcome>& history,
                             const std::vector<pending_trial>& pending, const analysis& builtin,
                             const chat_fn& chat);

/// Puts the model's choice first in `a.ranked` (once) and as `a.selected`,
/// and adds the model's part to the reasoning.
void apply_decision(analysis& a, reasoner_mode mode, const llm_decision& d);

} // namespace paratune
