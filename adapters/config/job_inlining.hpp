#pragma once

#include <string>

namespace paratune {

/// The job file at `path` as `paratune submit` sends it, so that the daemon
/// tunes exactly the files the client checked: a `model:` or `cluster:`
/// naming a YAML file is replaced by that file's mapping, and a pool's
/// relative table or token_file by its absolute path (a token is never
/// sent), all resolved in the job file's folder. A job naming no such file
/// is sent as written; otherwise the rest of the job keeps its keys and
/// values, and a comment at the top says which files were inlined.
/// Throws input_error as load_job does for a file it cannot read.
std::string inline_job_files(const std::string& path);

} // namespace paratune
