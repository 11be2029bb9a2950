#include "ledger/model_usage.hpp"

#include "messages/conversions.hpp"

namespace paratune {

int model_usage::refused_total() const {
  int n = 0;
  for (const auto& [reason, count] : refused)
    n += count;
  return n;
}

void model_usage::take_agents(const wire::session_opened& job) {
  const auto reasoners = wire::reasoners_of(job);
  agents.clear();
  for (const auto agent : all_reasoning_agents)
    if (const auto r = reasoners.of(agent); r.mode != reasoner_mode::builtin)
      agents.push_back({agent, r.mode, r.model});
  if (!agents.empty()) {
    mode = agents.front().mode;
    model = agents.front().model;
  }
}

void model_usage::count(const wire::llm_exchange& x) {
  ++asks;
  ++asks_by_agent[to_string(x.agent)];
  chosen += x.chosen;
  no_answer += x.answer.empty() && !x.error.empty();
  if (!x.rejection.empty())
    ++refused[x.rejection];
  latency_ms += x.latency_ms;
  prompt_tokens += x.prompt_tokens;
  completion_tokens += x.completion_tokens;
}

} // namespace paratune
