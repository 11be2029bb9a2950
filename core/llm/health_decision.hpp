#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/llm/guarded_ask.hpp"
#include "core/tuning/reasoner.hpp"

namespace paratune {

/// A model's reading of the run the reasoner moves from (Bottleneck
/// Analysis: OptiCo's health state).
struct proposed_health {
  health_state state = health_state::performance_tune;
  std::string reason;
};

/// Reads a Bottleneck Analysis answer strictly: {"health": one of
/// SEVERELY_UNDERUTILIZED, HIGH_PP_OVERHEAD, MEMORY_BOUND,
/// PERFORMANCE_TUNE, "reason": "..."}.
std::variant<proposed_health, guardrail_verdict> read_health_reading(const std::string& answer);

/// The run's numbers against a state: each state's own condition
/// (core/tuning/health.hpp) must hold on the measured run, so the model may
/// pick among the states the numbers allow (where several hold, the
/// built-in order picks one) but never one they rule out:
/// contradicts_measurement with the numbers. PERFORMANCE_TUNE always holds.
std::optional<guardrail_verdict> check_health(const trial_outcome& run, health_state named);

/// The JSON schema of the answer.
const nlohmann::json& health_reading_schema();

/// What came of asking.
struct health_decision {
  std::vector<llm_turn> turns;
  std::optional<health_diagnosis> health;  ///< the model's, when accepted
  std::string fallback;                    ///< why the built-in reading stands
};

/// The Bottleneck Analysis step with a model behind it (llm). Asked only
/// when the built-in analysis moved from a run that trained (a failed or
/// absent base has nothing to read); the answer passes read_health_reading
/// and check_health or is refused with the reason and asked once more.
/// An accepted reading is returned for analyze(..., &health); its
/// reasoning names the model and keeps the run's numbers.
health_decision read_health_with_llm(const std::string& prompt_template,
                                     const std::string& job_label, const tuning_context& ctx,
                                     const std::vector<trial_outcome>& history,
                                     const analysis& builtin, const chat_fn& chat);

} // namespace paratune
