#pragma once

// Which folder a job's relative file paths mean: the job file's, so that one
// path means one file whoever reads the job and from wherever it is run
// (`paratune tune` from another directory, `paratune submit` to a daemon
// started elsewhere).

#include <string>

namespace paratune {

/// True when a job's `model:` or `cluster:` value names a YAML file rather
/// than a catalog entry: it holds a '/' or ends in .yaml, .yml or .json (a
/// Hugging Face config.json).
bool names_a_file(const std::string& ref);

/// `path` as the job file in folder `job_dir` means it: a relative path is
/// joined to job_dir and normalized ("models/../m.yaml" under "/jobs" is
/// "/jobs/m.yaml"); an absolute path, or any path when job_dir is empty, is
/// returned unchanged.
std::string resolve_in_job_folder(const std::string& path, const std::string& job_dir);

} // namespace paratune
