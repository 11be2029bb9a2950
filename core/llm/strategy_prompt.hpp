#pragma once

#include <string>
#include <vector>

#include "core/llm/chat_message.hpp"
#include "core/tuning/reasoner.hpp"

namespace paratune {

/// The model's view of a session: the prompt template (configs/prompts/,
/// the team's own words: a system part, a line "--- user ---", a user part)
/// with its placeholders filled from the pool's history and the built-in
/// analysis: {{job}}, {{history}} (a table of every trial), {{current}}
/// (the configuration moved from), {{health}}, {{search_space}} and, for
/// ranking, {{candidates}} (the first `offered` of the analysis's ranked).
/// Throws input_error when the template has no "--- user ---" line.
std::vector<chat_message> strategy_prompt(const std::string& template_text,
                                          const std::string& job_name,
                                          const tuning_context& ctx,
                                          const std::vector<trial_outcome>& history,
                                          const analysis& builtin, int offered = 0);

/// A Markdown table of the trials: number, the searched keys, status,
/// TFLOP/s per GPU, MFU, peak memory and the failure in words.
std::string history_table(const tuning_context& ctx, const std::vector<trial_outcome>& history);

/// "NAME (MODEL on N GPUs)".
std::string job_label(const std::string& job_name, const tuning_context& ctx);

/// The searched keys of `c`, "tp=2 pp=1 mbs=4".
std::string searched_values(const tuning_context& ctx, const training_config& c);

} // namespace paratune
