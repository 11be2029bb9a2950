#include "actors/analyzer.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "actors/llm_exchanges.hpp"
#include "adapters/llm/model_chat.hpp"
#include "core/input_error.hpp"
#include "core/llm/diagnosis_decision.hpp"
#include "messages/conversions.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"

namespace paratune {

namespace {

/// The Analyzer's answer, and the model's asks to store before it.
struct analyzer_answer {
  wire::diagnosis diagnosis;
  std::vector<wire::llm_exchange> asks;
};

analyzer_answer diagnose(const wire::diagnose_request& req) {
  try {
    const auto exp = parse_experiment(req.experiment_yaml, req.experiment_name);
    evidence_request r;
    r.xprof = req.xprof;
    r.kineto = req.kineto;
    r.megatron_log = req.megatron_log;
    r.total_timeout = std::chrono::milliseconds(static_cast<long>(req.timeout_s * 1000));
    r.connect_timeout = std::min(r.total_timeout, std::chrono::milliseconds(3000));
    auto evidence = gather_evidence(r);
    const auto report = analyze_job(exp, evidence);
    // The model, when the request names one, reads what the built-in
    // Analyzer read; its class must agree with the profile's numbers.
    const auto settings = wire::from_wire(req.reasoner);
    if (settings.mode == reasoner_mode::builtin)
      return {wire::to_wire(report, evidence.kpis.step_time_ms.value_or(0)), {}};
    const auto d = read_profile_with_llm(settings.mode, req.analyzer_prompt, exp, report,
                                         model_chat(settings));
    if (!d.fallback.empty())
      spdlog::warn("analyzer: {}: {}", req.experiment_name, d.fallback);
    return {wire::to_wire(d.report, evidence.kpis.step_time_ms.value_or(0)),
            exchanges_of(d.turns, reasoning_agent::diagnosis, settings.mode, 0, 0,
                         d.from_model)};
  } catch (const input_error& e) {
    wire::diagnosis d;
    d.bottleneck = "unknown";
    d.error = e.what();
    d.bad_input = true;
    return {d, {}};
  } catch (const std::exception& e) {
    // input_error, a damaged profile, a server that is down: the requester
    // learns why instead of waiting for an answer that never comes.
    wire::diagnosis d;
    d.bottleneck = "unknown";
    d.error = e.what();
    return {d, {}};
  }
}

} // namespace

analyzer_state::analyzer_state(analyzer_actor::pointer self) : basic_agent_state(self) {
  on<wire::diagnose_request>([this](const wire::envelope& e, const wire::diagnose_request& req) {
    auto a = diagnose(req);
    if (!a.diagnosis.error.empty())
      spdlog::warn("analyzer: session {}: {}", e.session, a.diagnosis.error);
    for (auto& x : a.asks)
      store(wire::make_envelope(e.session, 0, x));
    store_and_publish(topics::diagnosis(e.session),
                      wire::make_envelope(e.session, 0, a.diagnosis));
  });
}

analyzer_actor::behavior_type
analyzer(analyzer_actor::stateful_pointer<analyzer_state> self, agent_deps deps) {
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
