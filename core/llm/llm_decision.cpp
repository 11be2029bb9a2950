#include "core/llm/llm_decision.hpp"

#include <variant>

#include "core/llm/model_answer.hpp"
#include "core/llm/strategy_prompt.hpp"
#include "core/tuning/safety_guards.hpp"
#include "core/tuning/throughput_estimator.hpp"

namespace paratune {

namespace {

/// The guards of analyze(), over the same history and running trials.
struct session_guards {
  throughput_estimator estimator;
  safety_guards guards;

  session_guards(const tuning_context& ctx, const std::vector<trial_outcome>& history,
                 const std::vector<pending_trial>& pending)
    : estimator(ctx, history),
      guards(ctx, history,
             [this](const training_config& c) -> const perf_prediction& { return estimator.raw(c); },
             pending) {}

  std::optional<guardrail_verdict> check(const training_config& c) {
    return check_guardrails(guards, c, estimator.raw(c));
  }
};

suggestion from_model(const analysis& builtin, const proposed_config& p,
                      throughput_estimator& estimator) {
  suggestion s;
  s.config = p.config;
  s.changes = diff(builtin.base, p.config);
  s.text = s.changes.empty() ? "Run the current configuration." : change_text(s.changes);
  s.group = candidate_group::llm;
  s.why = "the model: " + p.reason;
  const auto e = estimator.estimate(p.config);
  s.predicted_tflops = e.tflops;
  s.uncertainty = e.sigma;
  return s;
}

/// Reads and checks one answer: the suggestion to run, or why not.
std::variant<suggestion, guardrail_verdict>
judge(reasoner_mode mode, const std::string& answer, const tuning_context& ctx,
      const analysis& builtin, int offered, session_guards& g) {
  if (mode == reasoner_mode::hybrid) {
    auto r = read_proposed_ranking(answer, offered);
    if (auto* bad = std::get_if<guardrail_verdict>(&r))
      return *bad;
    suggestion s = builtin.ranked[size_t(std::get<proposed_ranking>(r).order.front())];
    if (auto bad = g.check(s.config))
      return *bad;
    s.why += "; the model ranked it first: " + std::get<proposed_ranking>(r).reason;
    return s;
  }
  auto p = read_proposed_config(answer, ctx, builtin.base);
  if (auto* bad = std::get_if<guardrail_verdict>(&p))
    return *bad;
  const auto& proposed = std::get<proposed_config>(p);
  if (auto bad = g.check(proposed.config))
    return *bad;
  return from_model(builtin, proposed, g.estimator);
}

} // namespace

const nlohmann::json& proposal_schema() {
  static const nlohmann::json schema = {
      {"type", "object"},
      {"properties",
       {{"config", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}},
        {"reason", {{"type", "string"}}}}},
      {"required", {"config", "reason"}},
      {"additionalProperties", false}};
  return schema;
}

const nlohmann::json& ranking_schema() {
  static const nlohmann::json schema = {
      {"type", "object"},
      {"properties",
       {{"ranking", {{"type", "array"}, {"items", {{"type", "integer"}}}}},
        {"reason", {{"type", "string"}}}}},
      {"required", {"ranking", "reason"}},
      {"additionalProperties", false}};
  return schema;
}

llm_decision decide_with_llm(reasoner_mode mode, const std::string& prompt_template,
                             const std::string& job_name, const tuning_context& ctx,
                             const std::vector<trial_outcome>& history,
                             const std::vector<pending_trial>& pending, const analysis& builtin,
                             const chat_fn& chat) {
  llm_decision d;
  if (mode == reasoner_mode::builtin)
    return d;
  if (!builtin.selected) {
    d.fallback = "the built-in reasoner found nothing new and valid: the model is not asked";
    return d;
  }
  if (builtin.selected->group == candidate_group::initial) {
    d.fallback = "trial 1 runs the job's initial configuration: the model is not asked";
    return d;
  }
  const int offered = mode == reasoner_mode::hybrid
                        ? std::min(hybrid_offered, int(builtin.ranked.size())) : 0;
  auto messages = strategy_prompt(prompt_template, job_name, ctx, history, builtin, offered);
  const auto& schema = mode == reasoner_mode::hybrid ? ranking_schema() : proposal_schema();
  session_guards guards(ctx, history, pending);
  auto answer = ask_with_guardrails<suggestion>(
    std::move(messages), schema, chat, [&](const std::string& text) {
      return judge(mode, text, ctx, builtin, offered, guards);
    });
  d.turns = std::move(answer.turns);
  d.chosen = std::move(answer.accepted);
  if (!d.chosen)
    d.fallback = answer.fallback
                 + (d.turns.back().rejected ? ": the built-in choice stands" : "");
  return d;
}

void apply_decision(analysis& a, reasoner_mode mode, const llm_decision& d) {
  if (mode == reasoner_mode::builtin)
    return;
  std::string note = "\nModel (" + std::string(to_string(mode)) + "): ";
  for (const auto& t : d.turns)
    if (t.rejected)
      note += "refused an answer (" + std::string(to_string(t.rejected->reason)) + ": "
              + t.rejected->detail + "); ";
  if (!d.chosen) {
    a.reasoning += note + d.fallback + ".";
    return;
  }
  std::erase_if(a.ranked, [&](const suggestion& s) { return s.config == d.chosen->config; });
  a.ranked.insert(a.ranked.begin(), *d.chosen);
  a.selected = a.ranked.front();
  a.exhausted = false;
  a.reasoning += note + "selected " + d.chosen->text + " Reason: " + d.chosen->why + ".";
}

} // namespace paratune
