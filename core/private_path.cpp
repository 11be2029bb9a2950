#include "core/private_path.hpp"

#include <cstdio>

namespace paratune {

std::string octal_mode(unsigned mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", mode & 07777u);
  return text;
}

private_path_finding judge_private_path(private_path_kind kind, unsigned owner_uid,
                                        unsigned self_uid, unsigned mode) {
  constexpr unsigned others_write = 0022, others_read = 0044, others_any = 0077;
  private_path_finding f;
  if (owner_uid != self_uid) {
    f.verdict = private_path_verdict::refuse;
    f.problem = "belongs to uid " + std::to_string(owner_uid) + ", not to this user (uid "
                + std::to_string(self_uid) + ")";
    return f;
  }
  if (kind == private_path_kind::secret_file) {
    if (mode & others_any) {
      f.verdict = private_path_verdict::refuse;
      f.problem = "can be read or written by other users (mode " + octal_mode(mode) + ")";
    }
    return f;
  }
  if (mode & others_write) {
    f.verdict = private_path_verdict::refuse;
    f.problem = "has mode " + octal_mode(mode) + ": other users may write to it, and so replace "
                "the sockets or the pool's files in it (chmod 700 it)";
  } else if (mode & others_read) {
    f.verdict = private_path_verdict::tighten;
    f.mode_after = 0700;
    f.problem = "had mode " + octal_mode(mode) + ": other users could list it; set to 0700";
  }
  return f;
}

} // namespace paratune
