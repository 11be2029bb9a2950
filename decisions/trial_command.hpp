#pragma once

#include <string>

#include "frameworks/framework.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// A configuration as the session's framework's own arguments for a
/// tuning run (model, precision, steps and devices from the session's job);
/// throws input_error in the framework's words when it refuses it.
std::vector<std::string> trainer_args_for(const framework& f, const wire::session_opened& s,
                                          const training_config& config);

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
