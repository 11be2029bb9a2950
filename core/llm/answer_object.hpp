#pragma once

#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "core/llm/guardrail.hpp"

namespace paratune {

/// A model's answer without a surrounding ```json ... ``` fence.
std::string unfenced_answer(const std::string& answer);

/// A refusal of an answer that does not read as its agent's structure.
guardrail_verdict unparsable_answer(const std::string& why);

/// The answer as one JSON object with a non-empty "reason" string (what
/// every structured answer carries), or why it is not one (unparsable).
std::variant<nlohmann::json, guardrail_verdict> reasoned_object(const std::string& answer);

/// A judge for ask_with_guardrails: `read` parses the answer's text into a
/// T (or refuses it), then `check` holds what was read against what was
/// measured (nothing when it agrees). The agents' guardrails are all of
/// this shape: strict parsing first, the evidence second.
template <class T, class Read, class Check>
auto read_then_check(Read read, Check check) {
  return [read, check](const std::string& text) -> std::variant<T, guardrail_verdict> {
    auto r = read(text);
    if (auto* value = std::get_if<T>(&r))
      if (std::optional<guardrail_verdict> bad = check(*value))
        return *bad;
    return r;
  };
}

} // namespace paratune
