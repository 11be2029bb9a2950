#pragma once

#include <string>

#include "core/trial_dir_access.hpp"

namespace paratune {

/// Makes a Slurm trial's directory, `path` (…/SESSION/N), for a job that
/// runs as `job_user`: mode 0700 and that user's (chown when paratune runs
/// as root and the job as another user), its session directory 0711 when
/// it holds another user's trials. Throws std::runtime_error, before
/// anything is submitted, when that user could not write there: a parent
/// it cannot pass through (named, with its mode and owner), or a paratune
/// that is not root facing a job of another user. Slurm itself would say
/// only "JobLaunchFailure" and leave no output file.
void make_slurm_trial_dir(const std::string& path, const unix_user& job_user);

} // namespace paratune
