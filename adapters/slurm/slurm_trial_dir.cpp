#include "adapters/slurm/slurm_trial_dir.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace paratune {

namespace {

namespace fs = std::filesystem;

std::string octal_mode(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

std::string user_name(unsigned uid) {
  if (const passwd* pw = getpwuid(uid))
    return pw->pw_name;
  return "uid " + std::to_string(uid);
}

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

/// stat of every directory from / down to `dir`.
std::vector<dir_stat> chain_to(const fs::path& dir) {
  std::vector<dir_stat> chain;
  fs::path at;
  for (const auto& part : dir) {
    at /= part;
    struct stat st {};
    if (stat(at.c_str(), &st) != 0)
      fail("cannot stat", at.string());
    chain.push_back({at.string(), st.st_uid, st.st_gid, unsigned(st.st_mode & 07777)});
  }
  return chain;
}

} // namespace

void make_slurm_trial_dir(const std::string& path, const unix_user& job_user) {
  const fs::path trial(path);
  const fs::path session = trial.parent_path();
  const auto self = geteuid();
  const auto owner = trial_dir_owner_for(job_user.uid, self);
  if (owner == trial_dir_owner::refused)
    throw std::runtime_error("the pool's jobs run as user '" + job_user.name
                             + "', and paratune, running as '" + user_name(self)
                             + "' (not root), cannot give it trial directory " + path
                             + ": run paratune as '" + job_user.name
                             + "' or as root, or submit as '" + user_name(self)
                             + "' (via: sbatch, or slurmrestd with user: " + user_name(self) + ")");
  const bool created_session = !fs::exists(session);
  fs::create_directories(session);
  if (owner == trial_dir_owner::job_user && created_session
      && chmod(session.c_str(), shared_session_dir_mode) != 0)
    fail("cannot set the mode of", session.string());
  if (const auto closed = first_closed(chain_to(session), job_user))
    throw std::runtime_error(
      "the pool's jobs run as user '" + job_user.name + "', who cannot enter " + closed->path
      + " (mode " + octal_mode(closed->mode) + ", owner " + user_name(closed->uid)
      + ") to write trial directory " + path
      + ": give the pool a `workdir:`, a directory '" + job_user.name
      + "' can reach on the file system the compute nodes share");
  if (mkdir(trial.c_str(), trial_dir_mode) != 0 && errno != EEXIST)
    fail("cannot make trial directory", path);
  // mkdir's mode passes through the umask; the mode is set whole here.
  if (chmod(trial.c_str(), trial_dir_mode) != 0)
    fail("cannot set the mode of", path);
  if (owner == trial_dir_owner::job_user && chown(trial.c_str(), job_user.uid, job_user.gid) != 0)
    fail("cannot give to user '" + job_user.name + "' trial directory", path);
}

} // namespace paratune
