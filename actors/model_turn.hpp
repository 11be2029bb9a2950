#pragma once

#include <string>
#include <vector>

#include "core/llm/llm_decision.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// The language model's turn after a built-in analysis, for a session whose
/// job names one (`reasoner:` llm or hybrid): asks it over HTTP
/// (adapters/llm, blocking: the analyst runs on a thread of its own),
/// puts its choice first when the guardrails pass it, and returns the
/// exchanges to store (wire::llm_exchange, one per ask). A session with the
/// builtin reasoner returns nothing and leaves `a` alone.
std::vector<wire::llm_exchange> model_turn(const wire::session_opened& opened,
                                           const tuning_context& ctx,
                                           const std::vector<trial_outcome>& history,
                                           const std::vector<pending_trial>& pending,
                                           analysis& a, int after_trial, int request);

/// Bottleneck analysis's model turn, for a session whose job puts a model
/// behind it (`agents: {bottleneck_analysis: llm}`): the model reads the
/// run the built-in analysis moved from, and a reading the guardrails pass
/// (core/llm/health_decision.hpp: it must agree with that run's numbers)
/// replaces the built-in health, `a` analysed again from it. Returns the
/// exchanges to store; a refusal or no answer leaves `a` alone, its
/// reasoning saying why.
std::vector<wire::llm_exchange> health_turn(const wire::session_opened& opened,
                                            const tuning_context& ctx,
                                            const std::vector<trial_outcome>& history,
                                            const std::vector<pending_trial>& pending,
                                            runnable_space* space, analysis& a, int after_trial,
                                            int request);

} // namespace paratune
