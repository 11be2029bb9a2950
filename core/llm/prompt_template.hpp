#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/llm/chat_message.hpp"

namespace paratune {

/// A prompt as the team writes it in configs/prompts/: a system part, a
/// line "--- user ---", a user part, with {{name}} placeholders in either.
/// Returns the two messages with every placeholder named in `values`
/// filled. Throws input_error when the template has no "--- user ---" line.
std::vector<chat_message> render_prompt(const std::string& template_text,
                                        const std::map<std::string, std::string>& values);

} // namespace paratune
