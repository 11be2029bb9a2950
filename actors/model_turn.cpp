#include "actors/model_turn.hpp"

#include "adapters/llm/chat_client.hpp"
#include "messages/conversions.hpp"

namespace paratune {

namespace {

wire::llm_exchange exchange_of(const llm_turn& t, reasoner_mode mode, int ask, int after_trial,
                               int request) {
  wire::llm_exchange x;
  x.after_trial = after_trial;
  x.request = request;
  x.mode = mode;
  x.ask = ask;
  for (const auto& m : t.messages)
    x.messages.push_back({m.role, m.content});
  x.answer = t.reply.content;
  x.error = t.reply.error;
  x.latency_ms = t.reply.latency_ms;
  x.prompt_tokens = t.reply.prompt_tokens;
  x.completion_tokens = t.reply.completion_tokens;
  x.attempts = t.reply.attempts;
  if (t.rejected) {
    x.rejection = to_string(t.rejected->reason);
    x.detail = t.rejected->detail;
  }
  return x;
}

} // namespace

std::vector<wire::llm_exchange> model_turn(const wire::session_opened& opened,
                                           const tuning_context& ctx,
                                           const std::vector<trial_outcome>& history,
                                           const std::vector<pending_trial>& pending,
                                           analysis& a, int after_trial, int request) {
  const auto mode = opened.reasoner.mode;
  if (mode == reasoner_mode::builtin)
    return {};
  const chat_client client(wire::from_wire(opened.reasoner));
  const chat_fn ask = [&client](const std::vector<chat_message>& messages,
                                const nlohmann::json& schema) {
    const auto r = client.complete(messages, &schema);
    chat_outcome o;
    o.ok = r.ok();
    if (r.ok()) {
      o.content = r.value().content;
      o.latency_ms = r.value().latency_ms;
      o.prompt_tokens = r.value().prompt_tokens;
      o.completion_tokens = r.value().completion_tokens;
      o.attempts = r.value().attempts;
    } else {
      o.error = std::string(to_string(r.error().kind)) + ": " + r.error().message;
      o.attempts = r.error().attempts;
    }
    return o;
  };
  const auto& prompt = mode == reasoner_mode::hybrid ? opened.ranking_prompt
                                                     : opened.generation_prompt;
  const auto d = decide_with_llm(mode, prompt, opened.job_name, ctx, history, pending, a, ask);
  std::vector<wire::llm_exchange> out;
  for (size_t i = 0; i < d.turns.size(); ++i)
    out.push_back(exchange_of(d.turns[i], mode, int(i) + 1, after_trial, request));
  if (d.chosen && !out.empty())
    out.back().chosen = true;
  apply_decision(a, mode, d);
  return out;
}

} // namespace paratune
