#pragma once

#include "adapters/slurm/slurm_client.hpp"
#include "adapters/slurm/slurm_job.hpp"
#include "adapters/slurm/slurm_result.hpp"

#include <string_view>

namespace paratune {

// Readers of what Slurm's command-line tools print (Slurm 22.05). Their
// output is untrusted text: each reader answers malformed rather than
// guessing.

/// `sbatch --parsable` prints "ID" or "ID;CLUSTER".
slurm_result<slurm_job_id> parse_sbatch_parsable(std::string_view out);

/// One line of `scontrol show job -o ID`: space-separated Key=Value pairs.
/// Values may hold spaces (a job name, a path, a reason), so a new pair
/// starts only at a word that looks like one of Slurm's keys (a capital
/// letter, then letters, digits, '_', ':', '/', then '='); a key this
/// reader uses that appears twice is ambiguous (a job name or a path
/// imitating a key) and the line is malformed.
slurm_result<slurm_job_status> parse_scontrol_job(std::string_view line);

/// Whether `value` (a job name or a path) would make an `scontrol show job
/// -o` line ambiguous: it holds a space followed by something shaped like a
/// key ("x JobState=COMPLETED"). The CLI client refuses to submit those.
bool ambiguous_in_scontrol_line(std::string_view value);

/// `scontrol ping`: "Slurmctld(primary) at HOST is UP" (or DOWN).
slurm_result<slurm_ping> parse_scontrol_ping(std::string_view out);

/// A failed sbatch, scontrol or scancel (non-zero exit), told apart by its
/// standard error: a controller that cannot be reached or a configuration
/// that cannot be read is `unreachable`; "Invalid job id" is `not_found`;
/// sbatch's "Batch job submission failed: REASON" is `refused` with
/// Slurm's REASON; anything else is `command_failed`.
slurm_error classify_cli_failure(std::string_view command, int exit_code, std::string_view err);

} // namespace paratune
