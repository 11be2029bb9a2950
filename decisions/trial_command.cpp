#include "decisions/trial_command.hpp"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "core/input_error.hpp"
#include "core/launch/launch_template.hpp"
#include "frameworks/framework.hpp"
#include "messages/conversions.hpp"

namespace paratune {

namespace {

/// The session's framework; throws input_error for one this paratune
/// does not have (records of another build).
const framework& framework_of(const wire::session_opened& s) {
  const auto* f = framework_named(s.framework);
  if (!f)
    throw input_error("the session's framework '" + s.framework
                      + "' is not one this paratune runs");
  return *f;
}


std::vector<std::string> template_command(const framework& f, const wire::session_opened& s,
                                          const wire::pool_wire& pool,
                                          const training_config& config,
                                          const std::string& session, int trial,
                                          const std::string& workdir) {
  launch_values v;
  v.framework_args = trainer_args_for(f, s, config);
  v.framework = f.args_field();
  v.framework_title = std::string(f.title());
  v.trial = trial;
  v.session = session;
  v.nodes = s.nodes;
  v.gpus_per_node = pool.gpus_per_node > 0 ? pool.gpus_per_node : s.cluster.devices_per_node;
  v.workdir = workdir;
  v.relay = s.relay_endpoint;
  return launch_template::parse(pool.launch).render(v);
}

/// paratune-relay publishes the command's lines to the bus and keeps them
/// in the trial's relay.log (tools/paratune-relay).
std::vector<std::string> relayed_command(const wire::session_opened& s,
                                         const wire::pool_wire& pool,
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

std::vector<std::string> simulator_command(const framework& f, const wire::session_opened& s,
                                           const training_config& config, int trial) {
  // paratune-sim speaks Megatron-LM's arguments and log; the job loader
  // refuses simulated pools for any other framework.
  if (!f.simulated())
    throw input_error("simulated pools run paratune-sim, which trains Megatron-LM, not "
                      + std::string(f.title()));
  std::vector<std::string> argv = {
    s.sim_path, "--sim-cluster", s.sim_cluster, "--sim-world-size", std::to_string(s.world_size),
    "--sim-seed", std::to_string(s.seed * 1000 + uint64_t(trial)),
    "--sim-time-scale", std::to_string(s.sim_time_scale),
    "--sim-failure-rate", std::to_string(s.sim_failure_rate)};
  for (auto& a : trainer_args_for(f, s, config))
    argv.push_back(std::move(a));
  return argv;
}

} // namespace

std::vector<std::string> trainer_args_for(const framework& f, const wire::session_opened& s,
                                          const training_config& config) {
  trainer_request r;
  r.model = wire::from_wire(s.model);
  r.config = config;
  parse_precision(s.precision, r.prec);
  r.train_iters = s.train_iters;
  r.world_size = std::max(1, s.world_size);
  return f.trainer_args(r);
}

void give_trial_command(wire::proposal& p, const wire::session_opened& job,
                        const std::string& session) {
  const auto config = wire::from_wire(p.config);
  const auto* pool = wire::pool_named(job, p.pool);
  if (pool && pool->kind == pool_kind::replay)
    return;
  const auto& f = framework_of(job);
  if (!pool || pool->kind == pool_kind::simulated) {
    p.argv = simulator_command(f, job, config, p.trial);
    return;
  }
  const auto& base = pool->workdir.empty() ? job.workdir : pool->workdir;
  if (!base.empty())
    p.workdir = base + "/" + session + "/" + std::to_string(p.trial);
  p.argv = template_command(f, job, *pool, config, session, p.trial, p.workdir);
  if (pool->kind == pool_kind::slurm && pool->relay)
    p.argv = relayed_command(job, *pool, session, p.trial, p.workdir, std::move(p.argv));
}

} // namespace paratune
