#include "core/llm/answer_object.hpp"

#include "core/text.hpp"

namespace paratune {

std::string unfenced_answer(const std::string& answer) {
  std::string s = trim(answer, " \t\r\n");
  if (s.rfind("```", 0) != 0)
    return s;
  const auto first_line = s.find('\n');
  const auto closing = s.rfind("```");
  if (first_line == std::string::npos || closing <= first_line)
    return s;
  return trim(s.substr(first_line + 1, closing - first_line - 1), " \t\r\n");
}

guardrail_verdict unparsable_answer(const std::string& why) {
  return {guardrail_rejection::unparsable, why};
}

std::variant<nlohmann::json, guardrail_verdict> reasoned_object(const std::string& answer) {
  auto j = nlohmann::json::parse(unfenced_answer(answer), nullptr, false);
  if (j.is_discarded())
    return unparsable_answer("the answer is not JSON");
  if (!j.is_object())
    return unparsable_answer("the answer is not a JSON object");
  const auto reason = j.find("reason");
  if (reason == j.end() || !reason->is_string() || reason->get<std::string>().empty())
    return unparsable_answer("the answer has no \"reason\" string");
  return j;
}

} // namespace paratune
