#include "actors/failure_analyst.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/llm_exchanges.hpp"
#include "adapters/llm/model_chat.hpp"
#include "core/llm/failure_decision.hpp"
#include "core/llm/strategy_prompt.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

namespace {

failed_trial failed_of(const wire::trial_result& r) {
  return {r.trial,     wire::from_wire(r.config), r.error_kind,  r.error_message,
          r.exit_code, r.iterations_logged,      r.log_tail};
}

} // namespace

failure_analyst_state::failure_analyst_state(failure_analyst_actor::pointer self)
  : basic_agent_state(self) {
  on<wire::trial_result>([this](const wire::envelope& e, const wire::trial_result& r) {
    if (r.status != trial_status::failed)
      return;
    const auto session = e.session;
    with_ledger(
      session, [this, session, r](const session_ledger& ledger) { diagnose(session, r, &ledger); },
      [this, session, r](const caf::error&) { diagnose(session, r, nullptr); });
  });
}

void failure_analyst_state::diagnose(const std::string& session, const wire::trial_result& r,
                                     const session_ledger* ledger) {
  // A TPU session's failures are its searcher's: the framework says which
  // are transient, and a mesh, not a Megatron-LM configuration, failed.
  if (ledger && !ledger->job() && ledger->tpu_job())
    return;
  failure_decision d;
  try {
    if (!ledger)
      throw std::runtime_error("the session's records did not read");
    if (!ledger->job())
      throw std::runtime_error("no session_opened record");
    const auto& s = *ledger->job();
    const auto settings = wire::reasoners_of(s).of(reasoning_agent::failure_analysis);
    const auto ctx = wire::context_of(s);
    d = analyse_failure_with_llm(settings.mode, s.failure_prompt, job_label(s.job_name, ctx), ctx,
                                 ledger->outcomes(), failed_of(r),
                                 settings.mode == reasoner_mode::builtin ? chat_fn{}
                                                                         : model_chat(settings));
    if (!d.turns.empty() && !d.from_model)
      spdlog::info("failure_analyst: session {} trial {}: {}", session, r.trial,
                   d.verdict.summary);
    for (auto& x : exchanges_of(d.turns, reasoning_agent::failure_analysis, settings.mode,
                                r.trial, 0, d.from_model))
      store(wire::make_envelope(session, r.trial, x));
  } catch (const std::exception& e) {
    // The rules alone: a diagnosis is always recorded, or the session
    // would wait for it.
    spdlog::warn("failure_analyst: session {} trial {}: {}; the rules decide", session, r.trial,
                 e.what());
    d = {analyze_failure(r.error_kind, r.error_message, wire::from_wire(r.config), r.exit_code),
         {}, false};
  }
  const auto& v = d.verdict;
  wire::failure_diagnosis out{r.trial, v.kind, v.blamed, v.confidence, v.retry, v.summary};
  store_and_publish(topics::failure(session, r.trial), wire::make_envelope(session, r.trial, out));
}

failure_analyst_actor::behavior_type
failure_analyst(failure_analyst_actor::stateful_pointer<failure_analyst_state> self,
                agent_deps deps) {
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
