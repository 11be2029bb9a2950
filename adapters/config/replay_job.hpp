#pragma once

#include <string>

#include "core/job_spec.hpp"

namespace paratune {

/// Reads the measured runs of a job's replay pool (`kind: replay`,
/// `table: FILE.csv`) into the pool, for the job's model, GPU count and
/// global batch (adapters/config/measured_tables.hpp). A table named
/// without a '/' is read from the data directory's perf/ (find_data_dir). A replay pool must
/// be the job's only pool, and the job's initial configuration one of its
/// runs. Without a `search:` (`search_given` false) the job's search space
/// becomes the one the runs span. Throws input_error naming `where`.
void read_replay_pools(job_spec& job, bool search_given, const std::string& where);

/// Whether the job answers its trials from a replay table.
bool is_replay_job(const job_spec& job);

} // namespace paratune
