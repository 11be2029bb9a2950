#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/measured_run.hpp"

namespace paratune {

/// Where a pool's trials run.
enum class pool_kind {
  simulated,  ///< paratune-sim child processes (the default)
  local,      ///< the launch command as child processes on this host
  slurm,      ///< batch jobs on a Slurm partition
  replay,     ///< answers each trial from a table of measured runs; launches nothing
};

/// How a Slurm pool talks to the scheduler.
enum class slurm_via {
  sbatch,      ///< the client commands: sbatch, squeue/scontrol, scancel
  slurmrestd,  ///< slurmrestd's REST API
};

/// How a Slurm pool's batch script starts the trial's command.
enum class slurm_tasks {
  one,       ///< exec'd once, on the job's first node (a launcher that spans the nodes itself)
  per_node,  ///< srun, one task per node: torchrun on each, {node_rank} telling which
  per_gpu,   ///< srun, one task per GPU: RANK, LOCAL_RANK and WORLD_SIZE from Slurm's task ids
};

const char* to_string(pool_kind k);
const char* to_string(slurm_tasks t);
bool parse_slurm_tasks(const std::string& text, slurm_tasks& out);
bool parse_pool_kind(const std::string& text, pool_kind& out);
const char* to_string(slurm_via v);
bool parse_slurm_via(const std::string& text, slurm_via& out);

/// One hardware pool of a job (the job file's `pools:`): a set of machines
/// trials may run on, at most `capacity` at a time.
struct pool_spec {
  std::string name;
  pool_kind kind = pool_kind::simulated;
  int capacity = 1;                 ///< trials in flight at once
  /// The trial's command as launch-template tokens (core/launch): required
  /// for local and slurm pools; a simulated pool runs paratune-sim.
  std::vector<std::string> launch;
  /// Variables set in the environment of this pool's trials (`env:`, e.g.
  /// NCCL_IB_HCA, LD_LIBRARY_PATH); the job's `env:` replaces a name both give.
  std::map<std::string, std::string> env;
  /// Local and Slurm pools: an absolute directory that exists (for Slurm, on
  /// the file system the compute nodes share) under which each trial gets
  /// `SESSION/N`; empty: `DB/trials/SESSION/N`, beside paratune's own pool,
  /// which a job running as another user may not reach.
  std::string workdir;
  // Slurm only.
  std::string partition;
  slurm_via via = slurm_via::sbatch;
  std::string url;                  ///< slurmrestd: "unix:/path" or "http(s)://host:port"
  std::string token_env;            ///< slurmrestd over TCP: environment variable with the JWT
  std::string token_file;           ///< ... or a file holding it
  std::string user;                 ///< slurmrestd over TCP: X-SLURM-USER-NAME
  int gpus_per_node = 0;            ///< devices per node the pool's nodes have (0: the cluster's)
  slurm_tasks tasks = slurm_tasks::one;  ///< `tasks:`, how the batch script starts the command
  // What a job asks of the scheduler besides the partition (sbatch's
  // --account, --qos, --constraint, --gres, --exclusive, --time); empty or
  // 0: not asked, the cluster's defaults hold.
  std::string account;
  std::string qos;
  std::string constraint;           ///< a feature expression, e.g. "h100&ib"
  std::string gres;                 ///< e.g. "gpu:8" or "gpu:h100:8"
  bool exclusive = false;
  int time_limit_minutes = 0;       ///< `time:` in Slurm's formats ("02:00:00", "1-00")
  /// The pool's dcgm-exporter ("http://node:9400/metrics"): while a trial
  /// runs there, its GPUs are scraped every dcgm_period_s. Empty: none.
  std::string dcgm_url;
  double dcgm_period_s = 5;
  /// The trial's output reaches paratune through paratune-relay on the node
  /// (its lines published on the bus, numbered, gaps fetched again) rather
  /// than through the job's output file.
  bool relay = false;
  std::string relay_path;           ///< the relay program on the nodes (default: beside paratune)
  std::string relay_bind;           ///< the bus address the relays reach (default tcp://127.0.0.1:*)
  // Replay only.
  std::string table;                ///< the measured table's path, as the job names it
  /// The table's runs for this job's model, GPU count and global batch: the
  /// pool's whole search space and its answers (read when the job loads).
  std::vector<measured_run> measured;
};

} // namespace paratune
