#include "actors/strategy_generator.hpp"

#include <map>
#include <set>
#include <utility>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "core/input_error.hpp"
#include "core/launch/launch_template.hpp"
#include "core/megatron_args.hpp"
#include "core/perf/memory_verdict.hpp"
#include "core/pool_placement.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

namespace {

/// The job's pools and what runs on each; a job without pools has one
/// simulated pool that runs one trial at a time.
std::vector<pool_load> loads_of(const wire::session_opened& s, const session_ledger& l) {
  std::vector<pool_load> loads;
  for (const auto& p : s.pools)
    loads.push_back({p.name, p.capacity, 0, false});
  if (loads.empty())
    loads.push_back({"sim", 1, 0, false});
  const auto in_flight = l.in_flight();
  for (auto& load : loads) {
    for (const auto* t : in_flight)
      load.in_flight += t->proposal->pool == load.name;
    const auto pool = l.pools().find(load.name);
    if (pool == l.pools().end())
      continue;
    load.down = pool->second.last_end == failure_kind::launcher_error;
    load.paused = pool->second.launch_failures >= max_launch_failures;
  }
  return loads;
}

/// The paused pools in words: "pool 'a100': 3 trials in a row never
/// started (last: sbatch: error: ...)", one per pool, joined by "; ".
std::string paused_pools_text(const std::vector<pool_load>& loads, const session_ledger& l) {
  std::string out;
  for (const auto& load : loads) {
    if (!load.paused)
      continue;
    const auto& pool = l.pools().at(load.name);
    out += (out.empty() ? "" : "; ") + std::string("pool '") + load.name + "': "
           + std::to_string(pool.launch_failures) + " trials in a row never started"
           + (pool.last_launch_error.empty() ? std::string()
                                              : " (last: " + pool.last_launch_error + ")");
  }
  return out;
}

megatron_launch megatron_launch_of(const wire::session_opened& s, const training_config& config) {
  megatron_launch l;
  l.model = wire::from_wire(s.model);
  l.config = config;
  parse_precision(s.precision, l.prec);
  l.train_iters = s.train_iters;
  return l;
}

/// A local or Slurm pool's command: its launch template with this trial's values.
std::vector<std::string> local_command(const wire::session_opened& s, const wire::pool_wire& pool,
                                       const training_config& config, const std::string& session,
                                       int trial, const std::string& workdir) {
  launch_values v;
  v.megatron_args = render_megatron_args(megatron_launch_of(s, config));
  v.trial = trial;
  v.session = session;
  v.nodes = s.nodes;
  v.gpus_per_node = pool.gpus_per_node > 0 ? pool.gpus_per_node : s.cluster.devices_per_node;
  v.workdir = workdir;
  v.relay = s.relay_endpoint;
  return launch_template::parse(pool.launch).render(v);
}

/// A relay pool's command runs under paratune-relay, which publishes its
/// lines to the bus and keeps them in the trial's relay.log
/// (tools/paratune-relay); the command itself is an argv after "--".
std::vector<std::string> relayed_command(const wire::session_opened& s, const wire::pool_wire& pool,
                                         const std::string& session, int trial,
                                         const std::string& workdir,
                                         std::vector<std::string> command) {
  std::vector<std::string> argv = {pool.relay_path, "--bus",   s.relay_endpoint,
                                   "--session",     session,   "--trial",
                                   std::to_string(trial), "--log", workdir + "/relay.log",
                                   "--"};
  argv.insert(argv.end(), std::make_move_iterator(command.begin()),
              std::make_move_iterator(command.end()));
  return argv;
}

std::vector<std::string> simulator_command(const wire::session_opened& s,
                                           const training_config& config, int trial) {
  const auto l = megatron_launch_of(s, config);
  std::vector<std::string> argv = {
    s.sim_path, "--sim-cluster", s.sim_cluster, "--sim-world-size", std::to_string(s.world_size),
    "--sim-seed", std::to_string(s.seed * 1000 + uint64_t(trial)),
    "--sim-time-scale", std::to_string(s.sim_time_scale),
    "--sim-failure-rate", std::to_string(s.sim_failure_rate)};
  for (auto& a : render_megatron_args(l))
    argv.push_back(std::move(a));
  return argv;
}

/// Sets where `p` runs and the command it runs there. Throws input_error
/// when the pool's launch template does not render.
void place(wire::proposal& p, const wire::session_opened& s, const std::string& pool_name,
           const std::string& session) {
  p.pool = pool_name;
  const auto config = wire::from_wire(p.config);
  const auto* pool = wire::pool_named(s, pool_name);
  if (pool && pool->kind == pool_kind::replay)
    return; // nothing runs: the validator answers from the pool's table
  if (!pool || pool->kind == pool_kind::simulated) {
    p.argv = simulator_command(s, config, p.trial);
    return;
  }
  // The pool's own `workdir:` (a shared file system the job's user reaches)
  // before the session's, which lies beside paratune's pool.
  const auto& base = pool->workdir.empty() ? s.workdir : pool->workdir;
  if (!base.empty())
    p.workdir = base + "/" + session + "/" + std::to_string(p.trial);
  p.argv = local_command(s, *pool, config, session, p.trial, p.workdir);
  if (pool->kind == pool_kind::slurm && pool->relay)
    p.argv = relayed_command(s, *pool, session, p.trial, p.workdir, std::move(p.argv));
}

/// The initial configuration, refused before launch, becomes a skipped trial.
std::optional<wire::trial_result> skipped_initial(const wire::analysis_report& r) {
  for (const auto& s : r.rejected)
    if (s.group == candidate_group::initial) {
      wire::trial_result t;
      t.trial = 1;
      t.config = s.config;
      t.status = trial_status::skipped;
      t.reason = "not launched: " + s.rejected;
      return t;
    }
  return std::nullopt;
}

wire::proposal from_suggestion(const wire::analysis_report& r, const wire::suggestion_wire& best,
                               int trial) {
  wire::proposal p;
  p.trial = trial;
  p.request = r.request;
  p.health = r.health;
  p.reasoning = r.reasoning;
  for (const auto& x : r.ranked)
    p.ranked.push_back(x.text);
  p.config = best.config;
  p.change = best.text;
  p.group = best.group;
  p.why = best.why;
  p.predicted_tflops = best.predicted_tflops;
  p.predicted_peak_mib = best.predicted_peak_mib;
  return p;
}

/// A failed trial's configuration once more, as trial `trial`.
wire::proposal retry_of(const wire::analysis_report& r, const wire::trial_result& failed,
                        const wire::failure_diagnosis& d, int trial) {
  wire::proposal p;
  p.trial = trial;
  p.request = r.request;
  p.retry_of = failed.trial;
  p.health = r.health;
  p.config = failed.config;
  p.group = candidate_group::retry;
  p.change = "Run trial " + std::to_string(failed.trial) + " again.";
  p.why = "trial " + std::to_string(failed.trial) + " failed on pool '" + failed.pool
          + "' for a reason that says nothing about its configuration: " + d.summary;
  p.reasoning = p.why;
  return p;
}

/// An answer that launches nothing: no slot is free, or nothing new and
/// valid remains (exhausted).
wire::proposal nothing_to_run(const wire::analysis_report& r) {
  wire::proposal p;
  p.request = r.request;
  p.exhausted = r.ranked.empty();
  p.converged = r.converged;
  if (r.converged)
    p.stop_reason = r.stop_reason;
  p.health = r.health;
  p.reasoning = r.reasoning;
  return p;
}

/// The failed trials due a retry: infrastructure or low-confidence
/// failures (the failure analyst's `retry`), each once; a retry is not
/// retried.
std::vector<const ledger_trial*> retries_due(const session_ledger& l) {
  std::vector<const ledger_trial*> due;
  for (const auto& [number, t] : l.trials()) {
    const bool failed = t.result && t.result->status == trial_status::failed;
    if (failed && t.diagnosis && t.diagnosis->retry && t.result->retry_of == 0
        && !l.retried().count(number))
      due.push_back(&t);
  }
  return due;
}

/// Up to the report's slots trials for the free slots of the pools: the
/// failed trials due a retry first, each on another pool than the one it
/// failed on, then the ranked suggestions in order, skipping any
/// configuration running now.
std::vector<wire::proposal> choose(const wire::analysis_report& report,
                                   const wire::session_opened& job, const session_ledger& ledger) {
  auto loads = loads_of(job, ledger);
  int want = std::min(report.slots, free_slots(loads));
  int trial = ledger.next_trial();
  std::vector<wire::proposal> out;
  std::set<std::string> taken; // configurations running or chosen now
  const auto in_flight = ledger.in_flight();
  for (const auto* t : in_flight)
    taken.insert(fingerprint(wire::from_wire(t->proposal->config)));
  const auto take = [&](wire::proposal p, const std::string& avoid) {
    const auto at = place_trial(loads, avoid);
    if (!at)
      return false;
    p.pool = loads[*at].name;
    ++loads[*at].in_flight;
    --want;
    taken.insert(fingerprint(wire::from_wire(p.config)));
    out.push_back(std::move(p));
    ++trial;
    return true;
  };
  int waiting = 0; // retries due that wait for a slot on another pool
  for (const auto* failed : retries_due(ledger)) {
    const auto& r = *failed->result;
    waiting += want <= 0 || !take(retry_of(report, r, *failed->diagnosis, trial), r.pool);
  }
  // The budget a waiting retry will need is not spent on new candidates.
  const int budget_left = job.trials - ledger.trials_used() - int(out.size());
  want = std::min(want, budget_left - waiting);
  // One tight configuration at a time (within the model's measured error of
  // the device): the first the ranking names runs, and its run, fitting or
  // not, teaches the screen about its neighbours before another is risked.
  const double limit = wire::from_wire(job.cluster).memory_mib();
  const auto tight = [limit](double peak) {
    return judge_memory(peak, limit, measured_memory_error) == memory_verdict::tight;
  };
  bool tight_out = false;
  for (const auto* t : in_flight)
    tight_out = tight_out || tight(t->proposal->predicted_peak_mib);
  for (const auto& s : report.ranked) {
    if (want <= 0)
      break;
    if (taken.count(fingerprint(wire::from_wire(s.config))))
      continue;
    if (tight(s.predicted_peak_mib) && std::exchange(tight_out, true))
      continue;
    take(from_suggestion(report, s, trial), {});
  }
  return out;
}

} // namespace

generator_state::generator_state(caf::event_based_actor* self) : agent_state(self) {
  on<wire::analysis_report>([this](const wire::envelope& e, wire::analysis_report report) {
    const auto session = e.session;
    with_ledger(session, [this, session, report](const session_ledger& ledger) {
      generate(session, report, ledger);
    });
  });
}

void generator_state::generate(const std::string& session, const wire::analysis_report& report,
                               const session_ledger& ledger) {
  const auto* job = ledger.job();
  if (!job || !report.error.empty())
    return; // an analysis that failed ends the session (tuning_session)
  if (report.request != ledger.latest_request())
    return; // a stale report: the session has asked again since
  if (republish_answer(session, report.request, ledger))
    return;
  if (ledger.next_trial() == 1)
    if (auto skipped = skipped_initial(report))
      return store_and_publish(topics::trial_state(session, 1),
                               wire::make_envelope(session, 1, *skipped));
  // A converged analysis launches nothing: its answer is the session's end.
  auto proposals =
    report.converged ? std::vector<wire::proposal>{} : choose(report, *job, ledger);
  const auto loads = loads_of(*job, ledger);
  const auto paused = paused_pools_text(loads, ledger);
  if (!paused.empty() && logged_pauses[session] != paused) {
    logged_pauses[session] = paused;
    spdlog::warn("session {}: paused {}", session, paused);
  }
  if (proposals.empty()) {
    proposals.push_back(nothing_to_run(report));
    if (all_paused(loads))
      proposals.back().no_pool = "no pool is left to run trials on: " + paused;
  }
  for (auto& p : proposals)
    publish_proposal(session, *job, p);
}

bool generator_state::republish_answer(const std::string& session, int request,
                                       const session_ledger& ledger) {
  const auto answers = ledger.proposals_for(request);
  for (const auto& e : answers)
    publish_only(topics::proposal(session), e);
  return !answers.empty();
}

void generator_state::publish_proposal(const std::string& session, const wire::session_opened& job,
                                       wire::proposal& p) {
  if (p.trial > 0) {
    try {
      place(p, job, p.pool, session);
    } catch (const input_error& e) {
      // A stored launch template that does not render (the job loader
      // checks it; a record from elsewhere may not): the trial fails, not
      // the agent.
      wire::trial_result failed;
      failed.trial = p.trial;
      failed.config = p.config;
      failed.pool = p.pool;
      failed.status = trial_status::failed;
      failed.error_kind = failure_kind::launcher_error;
      failed.error_message = failed.reason = std::string("launch command: ") + e.what();
      return store_and_publish(topics::trial_state(session, p.trial),
                               wire::make_envelope(session, p.trial, failed));
    }
  }
  store_and_publish(topics::proposal(session), wire::make_envelope(session, p.trial, p));
}

caf::behavior strategy_generator(caf::stateful_actor<generator_state>* self, agent_deps deps) {
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
