#pragma once

#include <string>
#include <vector>

#include "messages/wire_types.hpp"

namespace paratune {

/// One question about a tuning session, answered from its records: the
/// turn, and what to store for it in this order (the model's asks as
/// llm_exchange records, then the turn), so that a thread never holds a
/// turn without the exchanges behind it.
struct asked_turn {
  wire::dialogue_turn turn;
  std::vector<wire::envelope> records;
};

/// Answers `question` about session `id` from its `history`, as the
/// session's `dialogue` reasoner says (a model behind the guardrails, else
/// the built-in reasoner; a TPU session's, always the built-in one). `thread` 0 opens a new thread. Throws
/// input_error when `history` holds no tuning session, GPU or TPU (`where` names
/// where it was looked for: "the pool DIR", "the daemon"), for an unknown
/// thread and for an empty question. Shared by `paratune ask` on a pool
/// directory and the daemon's `ask` operation, so both answer alike.
asked_turn ask_session(const std::string& id, const std::vector<wire::envelope>& history,
                       const std::string& question, int thread, const std::string& where);

} // namespace paratune
