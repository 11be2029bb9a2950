#include "core/llm/model_answer.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "core/human_units.hpp"
#include "core/llm/answer_object.hpp"
#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

/// A JSON value as a configuration value's text: "4", "true", "selective".
std::optional<std::string> value_text(const nlohmann::json& v) {
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_boolean())
    return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer())
    return std::to_string(v.get<int64_t>());
  if (v.is_number_unsigned())
    return std::to_string(v.get<uint64_t>());
  return std::nullopt;
}

std::optional<guardrail_verdict> apply(training_config& c, const tuning_context& ctx,
                                       const std::string& key, const nlohmann::json& value) {
  if (!find_config_key(key))
    return guardrail_verdict{guardrail_rejection::unknown_parameter,
                             "'" + key + "' is not a configuration key"};
  const auto text = value_text(value);
  if (!text)
    return guardrail_verdict{guardrail_rejection::unknown_value,
                             key + ": " + value.dump() + " is not a string, whole number or "
                                                         "boolean"};
  const auto space = ctx.search.find(key);
  if (space == ctx.search.end()) {
    const auto fixed = get_value(ctx.initial, key);
    if (*text != fixed)
      return guardrail_verdict{guardrail_rejection::unknown_value,
                               key + " is fixed at " + fixed + " for this job, not " + *text};
  } else if (std::find(space->second.begin(), space->second.end(), *text) == space->second.end()) {
    return guardrail_verdict{guardrail_rejection::unknown_value,
                             key + "=" + *text + " is not among the search space's values "
                                 + join(space->second, ", ")};
  }
  try {
    set_value(c, key, *text);
  } catch (const input_error& e) {
    return guardrail_verdict{guardrail_rejection::unknown_value, e.what()};
  }
  return std::nullopt;
}

} // namespace

std::variant<proposed_config, guardrail_verdict>
read_proposed_config(const std::string& answer, const tuning_context& ctx,
                     const training_config& base) {
  auto parsed = reasoned_object(answer);
  if (auto* bad = std::get_if<guardrail_verdict>(&parsed))
    return *bad;
  const auto& j = std::get<nlohmann::json>(parsed);
  auto config = j.find("config");
  if (config == j.end() || !config->is_object() || config->empty())
    return unparsable_answer("the answer has no \"config\" object");
  proposed_config out{base, j["reason"].get<std::string>()};
  for (const auto& [key, value] : config->items())
    if (auto bad = apply(out.config, ctx, key, value))
      return *bad;
  return out;
}

std::variant<proposed_failure_reading, guardrail_verdict>
read_failure_reading(const std::string& answer) {
  auto parsed = reasoned_object(answer);
  if (auto* bad = std::get_if<guardrail_verdict>(&parsed))
    return *bad;
  const auto& j = std::get<nlohmann::json>(parsed);
  proposed_failure_reading out;
  out.reason = j["reason"].get<std::string>();
  const auto kind = j.find("kind");
  if (kind == j.end() || !kind->is_string())
    return unparsable_answer("the answer has no \"kind\" string");
  if (!parse_failure_kind(kind->get<std::string>(), out.kind) || out.kind == failure_kind::none)
    return guardrail_verdict{guardrail_rejection::unknown_value,
                             "kind '" + kind->get<std::string>() + "' is not one of oom, "
                             "config_invalid, nccl_timeout, node_failure, launcher_error, nan, "
                             "other"};
  const auto blamed = j.find("blamed");
  if (blamed == j.end() || !blamed->is_array())
    return unparsable_answer("the answer has no \"blamed\" list");
  for (const auto& key : *blamed) {
    if (!key.is_string())
      return unparsable_answer("blamed holds " + key.dump() + ", not a key");
    if (!find_config_key(key.get<std::string>()))
      return guardrail_verdict{guardrail_rejection::unknown_parameter,
                               "'" + key.get<std::string>() + "' is not a configuration key"};
    if (std::find(out.blamed.begin(), out.blamed.end(), key) == out.blamed.end())
      out.blamed.push_back(key.get<std::string>());
  }
  const auto confidence = j.find("confidence");
  if (confidence == j.end() || !confidence->is_number_integer()
      || confidence->get<int64_t>() < 0 || confidence->get<int64_t>() > 100)
    return guardrail_verdict{guardrail_rejection::unknown_value,
                             "confidence must be a whole number from 0 to 100"};
  out.confidence = int(confidence->get<int64_t>());
  return out;
}

std::variant<proposed_reply, guardrail_verdict> read_dialogue_reply(const std::string& answer,
                                                                    int trials_in_session) {
  const auto j = nlohmann::json::parse(unfenced_answer(answer), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return unparsable_answer("the answer is not a JSON object");
  const auto text = j.find("answer");
  if (text == j.end() || !text->is_string() || trim(text->get<std::string>(), " \t\r\n").empty())
    return unparsable_answer("the answer has no \"answer\" string");
  proposed_reply out{text->get<std::string>(), {}};
  const auto trials = j.find("trials");
  if (trials == j.end())
    return out;
  if (!trials->is_array())
    return unparsable_answer("\"trials\" is not a list of trial numbers");
  for (const auto& n : *trials) {
    if (!n.is_number_integer())
      return unparsable_answer("\"trials\" holds " + n.dump() + ", not a trial number");
    const auto v = n.get<int64_t>();
    if (v < 1 || v > trials_in_session)
      return guardrail_verdict{guardrail_rejection::unknown_value,
                               "trial " + std::to_string(v) + " is not in this session (it has "
                                   + count_of(trials_in_session, "trial") + ")"};
    out.trials.push_back(int(v));
  }
  return out;
}

std::variant<proposed_ranking, guardrail_verdict>
read_proposed_ranking(const std::string& answer, int offered) {
  auto parsed = reasoned_object(answer);
  if (auto* bad = std::get_if<guardrail_verdict>(&parsed))
    return *bad;
  const auto& j = std::get<nlohmann::json>(parsed);
  auto ranking = j.find("ranking");
  if (ranking == j.end() || !ranking->is_array() || ranking->empty())
    return unparsable_answer("the answer has no \"ranking\" list");
  proposed_ranking out{{}, j["reason"].get<std::string>()};
  std::set<int> seen;
  for (const auto& n : *ranking) {
    if (!n.is_number_integer())
      return unparsable_answer("the ranking holds " + n.dump() + ", not a candidate number");
    const auto v = n.get<int64_t>();
    if (v < 1 || v > offered)
      return guardrail_verdict{guardrail_rejection::not_a_candidate,
                               "candidate " + std::to_string(v) + " was not offered (1 to "
                                   + std::to_string(offered) + ")"};
    if (!seen.insert(int(v)).second)
      return unparsable_answer("the ranking names candidate " + std::to_string(v) + " twice");
    out.order.push_back(int(v) - 1);
  }
  return out;
}

} // namespace paratune
