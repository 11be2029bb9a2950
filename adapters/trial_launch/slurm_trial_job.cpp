#include "adapters/trial_launch/slurm_trial_job.hpp"

#include <algorithm>
#include <stdexcept>

#include "adapters/slurm/slurm_cli_client.hpp"
#include "adapters/slurm/slurm_job_user.hpp"
#include "adapters/slurm/slurm_trial_dir.hpp"
#include "adapters/slurm/slurmrestd_client.hpp"
#include "adapters/trial_launch/trial_env.hpp"
#include "core/launch/batch_script.hpp"

namespace paratune {

std::unique_ptr<slurm_client> slurm_client_for(const wire::pool_wire& pool) {
  if (!pool.via_rest)
    return std::make_unique<slurm_cli_client>();
  slurmrestd_options o;
  o.address = pool.url;
  o.user_name = pool.user;
  const auto token = !pool.token_env.empty()    ? slurm_token_from_env(pool.token_env)
                     : !pool.token_file.empty() ? slurm_token_from_file(pool.token_file)
                                                : slurm_result<std::string>(std::string());
  if (!token)
    throw std::runtime_error("pool '" + pool.name + "': " + token.error().message);
  o.token = token.value();
  return std::make_unique<slurmrestd_client>(o);
}

void make_slurm_job_dir(const wire::pool_wire& pool, const std::string& dir) {
  const auto user = slurm_job_user({pool.via_rest, pool.url, pool.user});
  if (!user)
    throw std::runtime_error("pool '" + pool.name + "': " + user.error().message);
  try {
    make_slurm_trial_dir(dir, user.value());
  } catch (const std::exception& e) {
    throw std::runtime_error("pool '" + pool.name + "': " + e.what());
  }
}

namespace {

/// How the batch script starts a pool's command: its tasks, and for a relay
/// pool the relay's own words (up to its "--", decisions/trial_command),
/// which run once around them.
batch_layout layout_of(const wire::pool_wire& pool, const wire::session_opened& job,
                       const wire::proposal& p) {
  batch_layout l;
  l.tasks = pool.tasks;
  l.gpus_per_node = pool.gpus_per_node > 0 ? pool.gpus_per_node : job.cluster.devices_per_node;
  if (pool.relay) {
    const auto dashes = std::find(p.argv.begin(), p.argv.end(), "--");
    if (dashes != p.argv.end())
      l.wrapper_words = size_t(dashes - p.argv.begin()) + 1;
  }
  return l;
}

} // namespace

slurm_job_request slurm_request_for(const wire::pool_wire& pool, const wire::session_opened& job,
                                    const wire::proposal& p, const std::string& session) {
  // What the pool asks of the scheduler (partition, account, qos,
  // constraint, gres, exclusive, GPUs per node, its `time:`), the trial's
  // own directory, output file and environment.
  slurm_job_request r;
  r.name = "paratune-" + session + "-" + std::to_string(p.trial);
  r.partition = pool.partition;
  r.gpus_per_node = pool.gpus_per_node;
  r.working_directory = p.workdir;
  r.output_path = p.workdir + "/slurm-%j.out";
  r.environment = trial_env_of(job, &pool, p);
  r.time_limit_minutes = pool.time_limit_minutes;
  r.account = pool.account;
  r.qos = pool.qos;
  r.constraint = pool.constraint;
  r.gres = pool.gres;
  r.exclusive = pool.exclusive;
  r.nodes = job.nodes;
  if (job.early_stop.enabled) {
    const int trial_limit = int(job.early_stop.wall_s / 60) + 1;
    if (r.time_limit_minutes == 0 || trial_limit < r.time_limit_minutes)
      r.time_limit_minutes = trial_limit;
  }
  const auto layout = layout_of(pool, job, p);
  if (layout.tasks != slurm_tasks::one)
    r.tasks_per_node = layout.tasks == slurm_tasks::per_gpu ? layout.gpus_per_node : 1;
  r.script = batch_script(p.argv, p.workdir, {}, layout);
  return r;
}

} // namespace paratune
