#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/llm/chat_message.hpp"
#include "core/llm/guardrail.hpp"

namespace paratune {

/// One exchange with the model: what was asked, what came back, and what
/// the guardrails said of it (nothing: accepted, or no answer came).
struct llm_turn {
  std::vector<chat_message> messages;
  chat_outcome reply;
  std::optional<guardrail_verdict> rejected;
};

/// Asks the model: the messages and, for structured output, the answer's
/// JSON schema. The adapter (adapters/llm) does the HTTP and its retries.
using chat_fn = std::function<chat_outcome(const std::vector<chat_message>&,
                                           const nlohmann::json& schema)>;

/// What came of asking: every turn, and the accepted answer, or why none was.
template <class T>
struct guarded_answer {
  std::vector<llm_turn> turns;
  std::optional<T> accepted;
  std::string fallback;  ///< why nothing was accepted; empty when something was
};

/// Asks the model and reads its answer with `judge` (the answer's text ->
/// T, or the guardrail that refuses it). A refused answer is put back to
/// the model once, with the refusal in words; a second refusal, or no
/// answer at all, accepts nothing. Every agent that asks a model goes
/// through here, so none can skip the guardrails or ask a third time.
template <class T, class Judge>
guarded_answer<T> ask_with_guardrails(std::vector<chat_message> messages,
                                      const nlohmann::json& schema, const chat_fn& chat,
                                      Judge&& judge) {
  guarded_answer<T> out;
  for (int ask = 0; ask < 2; ++ask) {
    llm_turn turn{messages, chat(messages, schema), std::nullopt};
    if (!turn.reply.ok) {
      out.fallback = "the model did not answer (" + turn.reply.error + ")";
      out.turns.push_back(std::move(turn));
      return out;
    }
    std::variant<T, guardrail_verdict> verdict = judge(turn.reply.content);
    if (auto* accepted = std::get_if<T>(&verdict)) {
      out.accepted = std::move(*accepted);
      out.turns.push_back(std::move(turn));
      return out;
    }
    const auto& bad = std::get<guardrail_verdict>(verdict);
    turn.rejected = bad;
    messages.push_back({"assistant", turn.reply.content});
    messages.push_back({"user", std::string("paratune refused that answer (")
                                    + to_string(bad.reason) + ": " + bad.detail
                                    + "). Answer again, in the same JSON format."});
    out.turns.push_back(std::move(turn));
  }
  out.fallback = "the model's answers were refused twice ("
                 + std::string(to_string(out.turns.back().rejected->reason)) + ")";
  return out;
}

} // namespace paratune
