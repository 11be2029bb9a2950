#include "core/llm/failure_decision.hpp"

#include <fmt/format.h>

#include "core/llm/answer_object.hpp"
#include "core/llm/model_answer.hpp"
#include "core/llm/prompt_template.hpp"
#include "core/llm/strategy_prompt.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

constexpr int confident = 50;          ///< as the rules' (core/tuning/failure_analysis)
constexpr size_t tail_lines = 40;      ///< of the log, the last ones
constexpr size_t line_chars = 300;     ///< each cut to this

std::string log_text(const std::vector<std::string>& tail) {
  if (tail.empty())
    return "(no output was kept)";
  std::string out;
  const size_t from = tail.size() > tail_lines ? tail.size() - tail_lines : 0;
  for (size_t i = from; i < tail.size(); ++i)
    out += tail[i].substr(0, line_chars) + "\n";
  return out;
}

std::string rules_text(const failure_verdict& v) {
  return fmt::format("{}: {}", to_string(v.kind), v.summary);
}

/// The trial's own measurements against the reading.
std::optional<guardrail_verdict> contradiction(const proposed_failure_reading& r,
                                               const failed_trial& f) {
  if (r.kind == failure_kind::config_invalid && f.iterations_logged > 0)
    return guardrail_verdict{guardrail_rejection::contradicts_measurement,
                             fmt::format("trial {} trained {} iterations before it failed: a "
                                         "start-up assertion (config_invalid) cannot be the "
                                         "cause", f.trial, f.iterations_logged)};
  if (r.kind == failure_kind::launcher_error && f.iterations_logged > 0)
    return guardrail_verdict{guardrail_rejection::contradicts_measurement,
                             fmt::format("trial {} trained {} iterations: the launcher did "
                                         "start it", f.trial, f.iterations_logged)};
  return std::nullopt;
}

failure_verdict verdict_of(const proposed_failure_reading& r) {
  failure_verdict v;
  v.kind = r.kind;
  v.blamed = r.blamed;
  v.confidence = r.confidence;
  v.retry = worth_retrying(r.kind, r.confidence, !r.blamed.empty());
  v.summary = fmt::format("{} (Confidence: {}; the model's reading)", r.reason, r.confidence);
  return v;
}

} // namespace

bool rules_ran_out(const failure_verdict& rules) {
  return rules.kind == failure_kind::other || rules.confidence < confident;
}

const nlohmann::json& failure_reading_schema() {
  static const nlohmann::json schema = {
      {"type", "object"},
      {"properties",
       {{"kind", {{"type", "string"}}},
        {"blamed", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"confidence", {{"type", "integer"}}},
        {"reason", {{"type", "string"}}}}},
      {"required", {"kind", "blamed", "confidence", "reason"}},
      {"additionalProperties", false}};
  return schema;
}

failure_decision analyse_failure_with_llm(reasoner_mode mode, const std::string& prompt_template,
                                          const std::string& job_label,
                                          const tuning_context& ctx,
                                          const std::vector<trial_outcome>& history,
                                          const failed_trial& f, const chat_fn& chat) {
  failure_decision d;
  d.verdict = analyze_failure(f.error_kind, f.message, f.config, f.exit_code);
  if (mode == reasoner_mode::builtin || !rules_ran_out(d.verdict))
    return d;
  auto messages = render_prompt(
    prompt_template,
    {{"job", job_label},
     {"history", history_table(ctx, history)},
     {"trial", std::to_string(f.trial)},
     {"config", searched_values(ctx, f.config)},
     {"error", f.message.empty() ? "(no error line was recognised)" : f.message},
     {"exit_code", std::to_string(f.exit_code)},
     {"iterations", std::to_string(f.iterations_logged)},
     {"log", log_text(f.log_tail)},
     {"rules", rules_text(d.verdict)}});
  auto answer = ask_with_guardrails<proposed_failure_reading>(
    std::move(messages), failure_reading_schema(), chat,
    read_then_check<proposed_failure_reading>(
      read_failure_reading,
      [&](const proposed_failure_reading& reading) { return contradiction(reading, f); }));
  d.turns = std::move(answer.turns);
  if (!answer.accepted) {
    d.verdict.summary += " Model: " + answer.fallback + "; the rules stand.";
    return d;
  }
  if (mode == reasoner_mode::llm) {
    d.verdict = verdict_of(*answer.accepted);
    d.from_model = true;
  } else {
    d.verdict.summary += fmt::format(" The model's reading: {}: {} (Confidence: {}).",
                                     to_string(answer.accepted->kind), answer.accepted->reason,
                                     answer.accepted->confidence);
  }
  return d;
}

} // namespace paratune
