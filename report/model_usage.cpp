#include "report/model_usage.hpp"

#include <fmt/format.h>

#include "core/human_units.hpp"
#include "core/reasoner_settings.hpp"

namespace paratune {

std::vector<std::string> model_sentences(const model_usage& u) {
  if (u.agents.empty())
    return {"The built-in reasoner decided every trial; no language model was asked."};
  std::vector<std::string> out;
  std::string behind;
  for (const auto& a : u.agents)
    behind += (behind.empty() ? "" : "; ")
              + fmt::format("{} {} with {}", to_string(a.agent), to_string(a.mode), a.model);
  out.push_back(fmt::format("Reasoner: {}. {} asks, {} answers were used, {} brought no answer; "
                            "{} and {} + {} tokens in all.",
                            behind, u.asks, u.chosen, u.no_answer, human_duration(u.latency_ms),
                            u.prompt_tokens, u.completion_tokens));
  if (u.refused.empty()) {
    out.push_back("The guardrails refused no answer.");
  } else {
    std::string by;
    for (const auto& [reason, count] : u.refused)
      by += (by.empty() ? "" : ", ") + fmt::format("{} {}", reason, count);
    out.push_back(fmt::format("The guardrails refused {} answers: {}.", u.refused_total(), by));
  }
  return out;
}

nlohmann::json model_json(const model_usage& u) {
  auto agents = nlohmann::json::array();
  for (const auto& a : u.agents)
    agents.push_back({{"agent", to_string(a.agent)}, {"mode", to_string(a.mode)},
                      {"model", a.model}, {"asks", u.asks_by_agent.count(to_string(a.agent))
                                                     ? u.asks_by_agent.at(to_string(a.agent))
                                                     : 0}});
  return {{"mode", to_string(u.mode)},
          {"agents", agents},
          {"model", u.model},
          {"asks", u.asks},
          {"chosen", u.chosen},
          {"no_answer", u.no_answer},
          {"refused", u.refused},
          {"refused_total", u.refused_total()},
          {"latency_ms", u.latency_ms},
          {"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens}};
}

} // namespace paratune
