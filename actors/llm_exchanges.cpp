#include "actors/llm_exchanges.hpp"

namespace paratune {

std::vector<wire::llm_exchange> exchanges_of(const std::vector<llm_turn>& turns,
                                             reasoning_agent agent, reasoner_mode mode,
                                             int after_trial, int request, bool accepted) {
  std::vector<wire::llm_exchange> out;
  for (size_t i = 0; i < turns.size(); ++i) {
    const auto& t = turns[i];
    wire::llm_exchange x;
    x.after_trial = after_trial;
    x.request = request;
    x.agent = agent;
    x.mode = mode;
    x.ask = int(i) + 1;
    for (const auto& m : t.messages)
      x.messages.push_back({m.role, m.content});
    x.answer = t.reply.content;
    x.error = t.reply.error;
    x.latency_ms = t.reply.latency_ms;
    x.prompt_tokens = t.reply.prompt_tokens;
    x.completion_tokens = t.reply.completion_tokens;
    x.attempts = t.reply.attempts;
    if (t.rejected) {
      x.rejection = to_string(t.rejected->reason);
      x.detail = t.rejected->detail;
    }
    out.push_back(std::move(x));
  }
  if (accepted && !out.empty())
    out.back().chosen = true;
  return out;
}

} // namespace paratune
