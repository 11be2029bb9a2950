#pragma once

#include <vector>

#include "core/llm/guarded_ask.hpp"
#include "core/reasoner_settings.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// What to store of an agent's asks (wire::llm_exchange, one per turn, on
/// the session): the last is marked chosen when `accepted`.
std::vector<wire::llm_exchange> exchanges_of(const std::vector<llm_turn>& turns,
                                             reasoning_agent agent, reasoner_mode mode,
                                             int after_trial, int request, bool accepted);

} // namespace paratune
