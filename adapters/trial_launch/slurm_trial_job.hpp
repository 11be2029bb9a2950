#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adapters/slurm/slurm_client.hpp"
#include "adapters/slurm/slurm_job.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// A Slurm pool's interface: its client commands (SLURM_CONF of this
/// process, else /etc/slurm), or slurmrestd with the pool's token. Throws
/// std::runtime_error naming the pool when the token cannot be read.
std::unique_ptr<slurm_client> slurm_client_for(const wire::pool_wire& pool);

/// Makes a Slurm trial's directory for the user its job runs as (who must
/// write its output file there) before the job is submitted. Throws
/// std::runtime_error naming the pool.
void make_slurm_job_dir(const wire::pool_wire& pool, const std::string& dir);

/// One trial as a batch job: its rendered command run by a script in the
/// trial's directory, its output beside it, with what the pool asks of the
/// scheduler and the trial's own environment. The time limit is the
/// pool's `time:` or the early-stop policy's wall-clock limit, whichever is
/// shorter.
slurm_job_request slurm_request_for(const wire::pool_wire& pool, const wire::session_opened& job,
                                    const wire::proposal& p, const std::string& session);

} // namespace paratune
