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

} // namespace paratune
