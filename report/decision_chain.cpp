#include "report/decision_chain.hpp"

#include "messages/codec.hpp"
#include "report/readable_ledger.hpp"

namespace paratune {

namespace {

void take_proposal(decision& d, const wire::proposal& p) {
  d.proposed = true;
  d.health = p.health;
  d.change = p.change;
  d.why = p.why;
  d.reasoning = p.reasoning;
  d.predicted_tflops = p.predicted_tflops;
  d.retry_of = p.retry_of;
  d.pool = p.pool;
}

void take_result(decision& d, const wire::trial_result& r) {
  d.finished = true;
  d.status = r.status;
  d.tflops_per_gpu = r.tflops_per_gpu;
  d.mfu = r.mfu;
  d.peak_memory_mib = r.peak_memory_mib;
  d.stop = r.stop;
  d.outcome = r.reason;
  if (d.pool.empty())
    d.pool = r.pool;
  if (!d.proposed && r.status == trial_status::skipped)
    d.change = "Run the initial configuration."; // refused before launch: no proposal
}

void take_diagnosis(decision& d, const wire::failure_diagnosis& f) {
  d.diagnosed = true;
  d.failure = f.kind;
  d.confidence = f.confidence;
  d.diagnosis = f.summary;
}

} // namespace

std::vector<decision> decision_chain(const session_ledger& ledger) {
  std::vector<decision> chain;
  for (const auto& [number, t] : ledger.trials()) {
    if (!t.proposal && !t.result && !t.diagnosis)
      continue; // only a run's start is known: nothing to explain yet
    decision d;
    d.trial = number;
    if (t.proposal)
      take_proposal(d, *t.proposal);
    if (t.result)
      take_result(d, *t.result);
    if (t.diagnosis)
      take_diagnosis(d, *t.diagnosis);
    chain.push_back(std::move(d));
  }
  return chain;
}

std::vector<decision> decision_chain(const std::vector<wire::envelope>& history) {
  return decision_chain(readable_ledger_of({}, history));
}

} // namespace paratune
