#include "core/llm/guardrail.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(guardrail_rejection r) {
  switch (r) {
    case guardrail_rejection::unparsable: return "unparsable";
    case guardrail_rejection::unknown_parameter: return "unknown_parameter";
    case guardrail_rejection::unknown_value: return "unknown_value";
    case guardrail_rejection::repeat: return "repeat";
    case guardrail_rejection::megatron_rule: return "megatron_rule";
    case guardrail_rejection::known_failure: return "known_failure";
    case guardrail_rejection::memory: return "memory";
    case guardrail_rejection::not_a_candidate: return "not_a_candidate";
    case guardrail_rejection::contradicts_measurement: return "contradicts_measurement";
    case guardrail_rejection::mesh_size: return "mesh_size";
    case guardrail_rejection::maxtext_rule: return "maxtext_rule";
  }
  return "unparsable";
}

bool parse_guardrail_rejection(const std::string& text, guardrail_rejection& out) {
  return parse_word_of(text,
                       {guardrail_rejection::unparsable, guardrail_rejection::unknown_parameter,
                        guardrail_rejection::unknown_value, guardrail_rejection::repeat,
                        guardrail_rejection::megatron_rule, guardrail_rejection::known_failure,
                        guardrail_rejection::memory, guardrail_rejection::not_a_candidate,
                        guardrail_rejection::contradicts_measurement,
                        guardrail_rejection::mesh_size, guardrail_rejection::maxtext_rule},
                       out);
}

std::optional<guardrail_verdict> check_guardrails(const safety_guards& guards,
                                                  const training_config& c,
                                                  const perf_prediction& p) {
  if (auto why = guards.constraint(c)) {
    // The search space and a replay table's measured set are values the
    // job allows; everything else the constraint guard says is a rule.
    const bool rule = why->rfind("violates a Megatron rule", 0) == 0;
    return guardrail_verdict{rule ? guardrail_rejection::megatron_rule
                                  : guardrail_rejection::unknown_value,
                             *why};
  }
  if (auto why = guards.duplicate(c))
    return guardrail_verdict{guardrail_rejection::repeat, *why};
  if (auto why = guards.known_failure(c))
    return guardrail_verdict{guardrail_rejection::known_failure, *why};
  if (auto why = guards.memory(c, p))
    return guardrail_verdict{guardrail_rejection::memory, *why};
  return std::nullopt;
}

} // namespace paratune
