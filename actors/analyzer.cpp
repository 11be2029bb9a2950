#include "actors/analyzer.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/input_error.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"

namespace paratune {

namespace {

wire::diagnosis diagnose(const wire::diagnose_request& req) {
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
    return wire::to_wire(report, evidence.kpis.step_time_ms.value_or(0));
  } catch (const input_error& e) {
    wire::diagnosis d;
    d.bottleneck = "unknown";
    d.error = e.what();
    d.bad_input = true;
    return d;
  } catch (const std::exception& e) {
    // input_error, a damaged profile, a server that is down: the requester
    // learns why instead of waiting for an answer that never comes.
    wire::diagnosis d;
    d.bottleneck = "unknown";
    d.error = e.what();
    return d;
  }
}

} // namespace

analyzer_state::analyzer_state(caf::event_based_actor* self) : agent_state(self) {
  on<wire::diagnose_request>([this](const wire::envelope& e, const wire::diagnose_request& req) {
    auto d = diagnose(req);
    if (!d.error.empty())
      spdlog::warn("analyzer: session {}: {}", e.session, d.error);
    store_and_publish(topics::diagnosis(e.session), wire::make_envelope(e.session, 0, d));
  });
}

caf::behavior analyzer(caf::stateful_actor<analyzer_state>* self, agent_deps deps) {
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
