#include "actors/strategy_generator.hpp"

#include <caf/all.hpp>

#include "core/input_error.hpp"
#include "core/launch/launch_template.hpp"
#include "core/megatron_args.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

namespace {

const wire::envelope* stored_proposal(const std::vector<wire::envelope>& history, int trial) {
  for (const auto& e : history)
    if (e.type == wire::type_name<wire::proposal>() && e.trial == trial)
      return &e;
  return nullptr;
}

/// The pool a trial runs on: the job's first pool (trials run one at a
/// time), or none for the built-in simulated pool.
const wire::pool_wire* pool_for(const wire::session_opened& s) {
  return s.pools.empty() ? nullptr : &s.pools.front();
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
  return launch_template::parse(pool.launch).render(v);
}

std::vector<std::string> launch_command(const wire::session_opened& s,
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

/// The initial configuration, refused before launch, becomes a skipped trial.
std::optional<wire::trial_result> skipped_initial(const wire::analysis_report& r,
                                                  int trial) {
  if (trial != 1)
    return std::nullopt;
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

wire::proposal make_proposal(const wire::analysis_report& r, const wire::session_opened& s,
                             const std::string& session, int trial) {
  wire::proposal p;
  p.trial = trial;
  p.health = r.health;
  p.reasoning = r.reasoning;
  for (const auto& x : r.ranked)
    p.ranked.push_back(x.text);
  if (r.ranked.empty()) {
    p.exhausted = true;
    return p;
  }
  const auto& best = r.ranked.front();
  p.config = best.config;
  p.change = best.text;
  p.group = best.group;
  p.why = best.why;
  p.predicted_tflops = best.predicted_tflops;
  p.predicted_peak_mib = best.predicted_peak_mib;
  const auto config = wire::from_wire(best.config);
  const auto* pool = pool_for(s);
  p.pool = pool ? pool->name : "sim";
  if (pool && pool->kind != pool_kind::simulated) {
    if (!s.workdir.empty())
      p.workdir = s.workdir + "/" + session + "/" + std::to_string(trial);
    p.argv = local_command(s, *pool, config, session, trial, p.workdir);
  } else {
    p.argv = launch_command(s, config, trial);
  }
  return p;
}

} // namespace

generator_state::generator_state(caf::event_based_actor* self) : agent_state(self) {
  on<wire::analysis_report>([this](const wire::envelope& e, wire::analysis_report report) {
    const auto session = e.session;
    with_history(session, [this, session, report](std::vector<wire::envelope> history) {
      generate(session, report, history);
    });
  });
}

void generator_state::generate(const std::string& session, const wire::analysis_report& report,
                               const std::vector<wire::envelope>& history) {
  const auto* opened = find_first<wire::session_opened>(history);
  if (!opened || !report.error.empty())
    return; // an analysis that failed ends the session (tuning_session)
  const int trial = count_of<wire::trial_result>(history) + 1;
  if (report.after_trial + 1 != trial)
    return; // a stale report: the session has moved on
  if (const auto* stored = stored_proposal(history, trial))
    return publish_only(topics::proposal(session), *stored);
  if (auto skipped = skipped_initial(report, trial))
    return store_and_publish(topics::trial_state(session, trial),
                             wire::make_envelope(session, trial, *skipped));
  wire::proposal p;
  try {
    p = make_proposal(report, wire::body_of<wire::session_opened>(*opened), session, trial);
  } catch (const input_error& e) {
    // A stored launch template that does not render (the job loader checks
    // it; a record from elsewhere may not): the trial fails, not the agent.
    wire::trial_result failed;
    failed.trial = trial;
    failed.status = trial_status::failed;
    failed.error_message = failed.reason = std::string("launch command: ") + e.what();
    return store_and_publish(topics::trial_state(session, trial),
                             wire::make_envelope(session, trial, failed));
  }
  store_and_publish(topics::proposal(session), wire::make_envelope(session, trial, p));
}

caf::behavior strategy_generator(caf::stateful_actor<generator_state>* self, agent_deps deps) {
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
