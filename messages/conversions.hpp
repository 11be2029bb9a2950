#pragma once

#include <vector>

#include "core/cluster_spec.hpp"
#include "core/measured_run.hpp"
#include "core/model_spec.hpp"
#include "core/pool_spec.hpp"
#include "core/tuning/reasoner.hpp"
#include "core/trial_outcome.hpp"
#include "messages/wire_types.hpp"

namespace paratune::wire {

// Between core/ types and wire bodies. Decoding functions throw
// paratune::input_error when a stored value does not parse.

model_wire to_wire(const model_spec& m);
model_spec from_wire(const model_wire& w);
cluster_wire to_wire(const cluster_spec& c);
cluster_spec from_wire(const cluster_wire& w);
config_map to_wire(const training_config& c);
training_config from_wire(const config_map& m);
suggestion_wire to_wire(const suggestion& s);
analysis_report to_wire(const analysis& a, int after_trial);
measured_run_wire to_wire(const measured_run& r);
/// A job's pool as sessions store it; relay_path is the caller's to set
/// (where the relay program is depends on the host that launches).
pool_wire to_wire(const pool_spec& p);
reasoner_wire to_wire(const reasoner_settings& r);
reasoner_settings from_wire(const reasoner_wire& w);
/// A session's reasoners: its shared settings and per-agent overrides.
agent_reasoners reasoners_of(const session_opened& s);

/// The run a replay pool measured for `c`, or nullptr.
const measured_run_wire* measured_run_of(const pool_wire& pool, const training_config& c);

/// The reasoner's context for a session.
tuning_context context_of(const session_opened& s);

/// The job's pool called `name`, or nullptr (the built-in simulated pool).
const pool_wire* pool_named(const session_opened& s, const std::string& name);

} // namespace paratune::wire
