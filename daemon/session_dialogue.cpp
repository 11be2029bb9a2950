#include "daemon/session_dialogue.hpp"

#include "actors/llm_exchanges.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/llm/model_chat.hpp"
#include "core/input_error.hpp"
#include "dialogue/dialogue.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"

namespace paratune {

asked_turn ask_session(const std::string& id, const std::vector<wire::envelope>& history,
                       const std::string& question, int thread, const std::string& where) {
  const auto facts = facts_of(id, history);
  if (history.empty() || (facts.summary.job.job_name.empty() && !facts.is_tpu()))
    throw input_error("no tuning session '" + id + "' in " + where);
  // A TPU session's answers are the built-in reasoner's (answer_question).
  const auto settings = facts.is_tpu()
                          ? reasoner_settings{}
                          : wire::reasoners_of(facts.summary.job).of(reasoning_agent::dialogue);
  const bool asks_model = settings.mode == reasoner_mode::llm;
  const auto answer = answer_question(
    facts, question, thread, settings,
    asks_model ? read_text_file(configs_dir() + "/prompts/dialogue.md") : std::string(),
    asks_model ? model_chat(settings) : chat_fn{});
  asked_turn out{answer.turn, {}};
  for (auto& x : exchanges_of(answer.asks, reasoning_agent::dialogue, settings.mode, 0, 0,
                              answer.turn.by_model))
    out.records.push_back(wire::make_envelope(id, 0, x));
  out.records.push_back(wire::make_envelope(id, 0, answer.turn));
  return out;
}

} // namespace paratune
