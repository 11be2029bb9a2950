#pragma once

#include "adapters/slurm/slurm_client.hpp"

#include <chrono>
#include <string>

namespace paratune {

struct slurm_cli_options {
  /// The cluster's slurm.conf, passed to the commands as SLURM_CONF; empty:
  /// the commands' own default (SLURM_CONF of this process or /etc/slurm).
  std::string slurm_conf;
  /// Folder of sbatch, scontrol and scancel; empty: found on PATH.
  std::string bin_dir;
  /// Each command is killed after this long. Slurm's tools retry an
  /// unreachable controller for some seconds before they give up.
  std::chrono::milliseconds timeout{60000};
};

/// A slurm_client that runs Slurm's own commands as child processes, each an
/// argv (never a shell): `sbatch --parsable` with the batch script on its
/// standard input and the job's environment in an --export-file,
/// `scontrol show job -o`, `scancel`, `scontrol ping`. User values travel
/// only as argv entries, files and stdin.
///
/// The job's environment is slurm_job_request's and nothing of this
/// process's: sbatch runs with exactly those variables (and SLURM_CONF),
/// --export names them and --export-file holds them. Its tools never see
/// this process's secrets; sbatch never SLURM_JWT, which it would copy into
/// the job (scontrol and scancel get it, for a cluster on auth/jwt).
class slurm_cli_client final : public slurm_client {
 public:
  explicit slurm_cli_client(slurm_cli_options options = {});

  slurm_result<slurm_job_id> submit(const slurm_job_request& job) override;
  slurm_result<slurm_job_status> state(slurm_job_id id) override;
  slurm_result<> cancel(slurm_job_id id) override;
  slurm_result<slurm_ping> ping() override;

 private:
  std::string tool(const char* name) const;

  slurm_cli_options options_;
};

} // namespace paratune
