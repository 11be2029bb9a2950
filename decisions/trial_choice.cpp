#include "decisions/trial_choice.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "core/perf/memory_verdict.hpp"
#include "decisions/proposal_forms.hpp"
#include "messages/conversions.hpp"

namespace paratune {

std::vector<pool_load> pool_loads(const wire::session_opened& job, const session_ledger& ledger) {
  std::vector<pool_load> loads;
  for (const auto& p : job.pools)
    loads.push_back({p.name, p.capacity, 0, false});
  if (loads.empty())
    loads.push_back({"sim", 1, 0, false});
  const auto in_flight = ledger.in_flight();
  for (auto& load : loads) {
    for (const auto* t : in_flight)
      load.in_flight += t->proposal->pool == load.name;
    const auto pool = ledger.pools().find(load.name);
    if (pool == ledger.pools().end())
      continue;
    load.down = pool->second.last_end == failure_kind::launcher_error;
    load.paused = pool->second.launch_failures >= max_launch_failures;
  }
  return loads;
}

std::string paused_pools_text(const std::vector<pool_load>& loads, const session_ledger& ledger) {
  std::string out;
  for (const auto& load : loads) {
    if (!load.paused)
      continue;
    const auto& pool = ledger.pools().at(load.name);
    out += (out.empty() ? "" : "; ")
           + paused_pool_text(load.name, pool.launch_failures, pool.last_launch_error);
  }
  return out;
}

std::vector<const ledger_trial*> retries_due(const session_ledger& ledger) {
  std::vector<const ledger_trial*> due;
  for (const auto& [number, t] : ledger.trials()) {
    const bool failed = t.result && t.result->status == trial_status::failed;
    if (failed && t.diagnosis && t.diagnosis->retry && t.result->retry_of == 0
        && !ledger.retried().count(number))
      due.push_back(&t);
  }
  return due;
}

namespace {

/// The choice as it is made: the pools' loads, the trials taken so far and
/// the configurations no new trial may repeat.
struct trial_choice {
  std::vector<pool_load> loads;
  int want = 0;   ///< trials still wanted
  int trial = 0;  ///< the next trial's number
  std::set<std::string> taken;  ///< configurations running or chosen now
  std::vector<wire::proposal> chosen;

  /// Places `p` on a pool (not `avoid` while another is up); false when no
  /// pool has a free slot for it.
  bool take(wire::proposal p, const std::string& avoid) {
    const auto at = place_trial(loads, avoid);
    if (!at)
      return false;
    p.pool = loads[*at].name;
    ++loads[*at].in_flight;
    --want;
    taken.insert(fingerprint(wire::from_wire(p.config)));
    chosen.push_back(std::move(p));
    ++trial;
    return true;
  }
};

} // namespace

std::vector<wire::proposal> choose_trials(const wire::analysis_report& report,
                                          const wire::session_opened& job,
                                          const session_ledger& ledger) {
  trial_choice c;
  c.loads = pool_loads(job, ledger);
  c.want = std::min(report.slots, free_slots(c.loads));
  c.trial = ledger.next_trial();
  const auto in_flight = ledger.in_flight();
  for (const auto* t : in_flight)
    c.taken.insert(fingerprint(wire::from_wire(t->proposal->config)));
  int waiting = 0; // retries due that wait for a slot on another pool
  for (const auto* failed : retries_due(ledger)) {
    const auto& r = *failed->result;
    waiting += c.want <= 0 || !c.take(retry_proposal(report, r, *failed->diagnosis, c.trial), r.pool);
  }
  const int budget_left = job.trials - ledger.trials_used() - int(c.chosen.size());
  c.want = std::min(c.want, budget_left - waiting);
  const double limit = wire::from_wire(job.cluster).memory_mib();
  const auto tight = [limit](double peak) {
    return judge_memory(peak, limit, measured_memory_error) == memory_verdict::tight;
  };
  bool tight_out = false;
  for (const auto* t : in_flight)
    tight_out = tight_out || tight(t->proposal->predicted_peak_mib);
  for (const auto& s : report.ranked) {
    if (c.want <= 0)
      break;
    if (c.taken.count(fingerprint(wire::from_wire(s.config))))
      continue;
    if (tight(s.predicted_peak_mib) && std::exchange(tight_out, true))
      continue;
    c.take(proposal_from_suggestion(report, s, c.trial), {});
  }
  return std::move(c.chosen);
}

} // namespace paratune
