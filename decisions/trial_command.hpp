#pragma once

#include <string>

#include "messages/wire_types.hpp"

namespace paratune {

/// Gives `p`, placed on pool `p.pool`, the command it runs there, as argv
/// (never a shell line: every value is one word):
/// - simulated (or no such pool): paratune-sim with the job's simulated
///   cluster, a seed per trial, and the trial's Megatron-LM arguments
///   (Megatron-LM's sessions only: paratune-sim trains nothing else);
/// - local and Slurm: the pool's launch template rendered with the trial's
///   values, in `<workdir>/<session>/<trial>` (the pool's `workdir:`
///   before the job's);
/// - Slurm with a relay: that command under paratune-relay, after "--";
/// - replay: nothing, the validator answers from the pool's table.
/// The trainer's arguments are the session's framework's (framework.hpp's
/// trainer_args). Throws input_error when the pool's launch template does
/// not render, or the framework refuses the configuration or is unknown.
void give_trial_command(wire::proposal& p, const wire::session_opened& job,
                        const std::string& session);

} // namespace paratune
