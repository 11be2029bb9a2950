#include "report/decision_chain.hpp"

#include <map>

#include "messages/codec.hpp"

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

std::vector<decision> decision_chain(const std::vector<wire::envelope>& history) {
  std::map<int, decision> by_trial;
  const auto at = [&](int trial) -> decision& {
    auto& d = by_trial[trial];
    d.trial = trial;
    return d;
  };
  for (const auto& e : history) {
    if (e.type == wire::type_name<wire::proposal>()) {
      const auto p = wire::body_of<wire::proposal>(e);
      if (p.trial > 0) // trial 0: an answer that launched nothing
        take_proposal(at(p.trial), p);
    } else if (e.type == wire::type_name<wire::trial_result>()) {
      const auto r = wire::body_of<wire::trial_result>(e);
      take_result(at(r.trial), r);
    } else if (e.type == wire::type_name<wire::failure_diagnosis>()) {
      const auto f = wire::body_of<wire::failure_diagnosis>(e);
      take_diagnosis(at(f.trial), f);
    }
  }
  std::vector<decision> chain;
  for (auto& [_, d] : by_trial)
    chain.push_back(std::move(d));
  return chain;
}

} // namespace paratune
