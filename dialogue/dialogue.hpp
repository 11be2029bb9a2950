#pragma once

#include <string>
#include <vector>

#include "core/llm/guarded_ask.hpp"
#include "core/reasoner_settings.hpp"
#include "dialogue/session_facts.hpp"

namespace paratune {

/// One answered question: the turn to store, and the model's asks (stored
/// as llm_exchange records with agent dialogue).
struct dialogue_answer {
  wire::dialogue_turn turn;
  std::vector<llm_turn> asks;
};

/// Answers `question` about a session. `thread` 0 opens a new thread;
/// another number continues that one, so that a follow-up is read with
/// what came before (it must exist: input_error otherwise). With a model
/// (`settings.mode` llm), the model answers from the built-in reasoner's
/// findings and the records, through the guardrails (strict JSON, cited
/// trials that exist); when it does not answer or is refused twice, the
/// built-in answer stands and says why. A follow-up never repeats an
/// earlier answer of its thread (without_repeats).
dialogue_answer answer_question(const session_facts& facts, const std::string& question,
                                int thread, const reasoner_settings& settings,
                                const std::string& prompt_template, const chat_fn& chat);

/// `text` cut into its sentences, each without leading spaces: a sentence
/// ends at '.', '?' or '!' followed by a space or the end.
std::vector<std::string> answer_sentences(const std::string& text);

/// A follow-up's answer without what the thread's earlier answers
/// (`before`) already said: the new sentences after "Beyond my answer in
/// turn N: ", or that nothing is new; `answer` itself when all of it is new
/// or the thread has no earlier turn.
std::string without_repeats(const std::string& answer,
                            const std::vector<wire::dialogue_turn>& before);

/// The JSON schema of a model's answer (read_dialogue_reply).
const nlohmann::json& dialogue_reply_schema();

} // namespace paratune
