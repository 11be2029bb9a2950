#include "core/trial_dir_access.hpp"

#include <algorithm>

namespace paratune {

bool may_search(const dir_stat& d, const unix_user& u) {
  if (u.uid == 0)
    return true;
  if (d.uid == u.uid)
    return (d.mode & 0100) != 0;
  const bool member = d.gid == u.gid
                      || std::find(u.groups.begin(), u.groups.end(), d.gid) != u.groups.end();
  if (member)
    return (d.mode & 0010) != 0;
  return (d.mode & 0001) != 0;
}

std::optional<dir_stat> first_closed(const std::vector<dir_stat>& chain, const unix_user& u) {
  for (const auto& d : chain)
    if (!may_search(d, u))
      return d;
  return std::nullopt;
}

trial_dir_owner trial_dir_owner_for(unsigned job_uid, unsigned self_uid) {
  if (job_uid == self_uid)
    return trial_dir_owner::paratune;
  return self_uid == 0 ? trial_dir_owner::job_user : trial_dir_owner::refused;
}

} // namespace paratune
