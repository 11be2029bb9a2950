#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/reasoner_settings.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// What a session's language model was asked and what came of it: its
/// agents from the job, its llm_exchange records counted. The ledger keeps
/// one (session_ledger::model_usage()); the report's "Model" section shows it.
struct model_usage {
  /// An agent with a model behind it (the session's `reasoner:`).
  struct agent_model {
    reasoning_agent agent = reasoning_agent::strategy_generation;
    reasoner_mode mode = reasoner_mode::llm;
    std::string model;
  };
  std::vector<agent_model> agents; ///< empty: the built-in reasoner decided alone
  reasoner_mode mode = reasoner_mode::builtin; ///< the first agent's (strategy generation's)
  std::string model;               ///< the first agent's served model
  int asks = 0;                    ///< exchanges, second asks included
  int chosen = 0;                  ///< answers that decided a trial
  int no_answer = 0;               ///< asks that brought no answer (after retries)
  std::map<std::string, int> refused;  ///< by guardrail word
  double latency_ms = 0;           ///< summed over the asks
  int prompt_tokens = 0;
  int completion_tokens = 0;
  std::map<std::string, int> asks_by_agent;  ///< by agent word

  int refused_total() const;
  /// The agents the job put a model behind.
  void take_agents(const wire::session_opened& job);
  /// One ask and what came of it.
  void count(const wire::llm_exchange& x);
};

} // namespace paratune
