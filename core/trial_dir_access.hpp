#pragma once

#include <optional>
#include <string>
#include <vector>

namespace paratune {

/// A directory as stat(2) describes it: who owns it and its permission bits.
struct dir_stat {
  std::string path;
  unsigned uid = 0;
  unsigned gid = 0;
  unsigned mode = 0;  ///< the permission bits, e.g. 0755
};

/// A Unix user as the kernel checks it: its ids and every group it is in.
struct unix_user {
  std::string name;
  unsigned uid = 0;
  unsigned gid = 0;
  std::vector<unsigned> groups;  ///< supplementary groups (may repeat gid)
};

/// Whether `u` may pass through `d` (search, the x bit): root always; the
/// owner by the owner's bit, a member of its group by the group's, anyone
/// else by the others' (the kernel's order: the first class that applies
/// decides, even when a later one would allow).
bool may_search(const dir_stat& d, const unix_user& u);

/// The first of `chain` (the directories from / down to the trial's parent)
/// that `u` cannot pass through; nullopt when it reaches the end. A job
/// running as `u` cannot open its output file below such a directory, and
/// Slurm then says only "JobLaunchFailure": paratune says which directory.
std::optional<dir_stat> first_closed(const std::vector<dir_stat>& chain, const unix_user& u);

/// Who gets a Slurm trial's directory. The job writes its output file and
/// relay.log there as the user it runs as, which is not paratune's own when
/// slurmrestd submits it (its socket's user, or the JWT's).
enum class trial_dir_owner {
  paratune,  ///< the job runs as paratune's own user: the directory is already its
  job_user,  ///< paratune runs as root: the directory is handed to the job's user
  refused,   ///< another user, and paratune, not root, cannot hand it over
};

/// The owner for a job running as `job_uid` launched by a paratune running as
/// `self_uid`. Never a world-writable directory instead: the trial's output
/// (a model's paths, a run's errors) is for the job's user and paratune.
trial_dir_owner trial_dir_owner_for(unsigned job_uid, unsigned self_uid);

/// A trial directory's mode: the job's user alone (paratune reads as root or
/// as that same user).
constexpr unsigned trial_dir_mode = 0700;
/// The session directory above it, when it holds directories of another
/// user: passable, not listable, so one trial's user cannot learn the rest.
constexpr unsigned shared_session_dir_mode = 0711;

} // namespace paratune
