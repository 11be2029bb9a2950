#include "adapters/slurm/slurm_job_user.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <vector>

namespace paratune {

namespace {

unix_user user_of(const passwd& pw) {
  unix_user u;
  u.name = pw.pw_name;
  u.uid = pw.pw_uid;
  u.gid = pw.pw_gid;
  int n = 64;
  std::vector<gid_t> groups(static_cast<size_t>(n));
  if (getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &n) < 0) {
    groups.resize(size_t(n));
    getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &n);
  }
  groups.resize(size_t(std::max(n, 0)));
  u.groups.assign(groups.begin(), groups.end());
  return u;
}

slurm_result<unix_user> user_by_uid(uid_t uid) {
  if (const passwd* pw = getpwuid(uid))
    return user_of(*pw);
  unix_user u; // a uid without a name (a container's): its ids are enough
  u.name = std::to_string(uid);
  u.uid = uid;
  u.gid = getegid();
  return u;
}

} // namespace

slurm_result<unix_user> slurm_job_user(const slurm_submitter& s) {
  if (!s.via_rest)
    return user_by_uid(geteuid());
  if (!s.user.empty()) {
    if (const passwd* pw = getpwnam(s.user.c_str()))
      return user_of(*pw);
    return slurm_error{slurm_failure::invalid_request,
                       "the pool's user '" + s.user + "', whom its jobs run as, is not a user "
                       "of this machine: the trial directories cannot be given to it"};
  }
  constexpr std::string_view unix_prefix = "unix:";
  if (s.url.rfind(unix_prefix, 0) != 0)
    return user_by_uid(geteuid());
  const auto socket = s.url.substr(unix_prefix.size());
  struct stat st {};
  if (stat(socket.c_str(), &st) != 0)
    return slurm_error{slurm_failure::unreachable,
                       "slurmrestd's socket " + socket + ": " + std::strerror(errno)};
  return user_by_uid(st.st_uid == 0 ? geteuid() : st.st_uid);
}

} // namespace paratune
