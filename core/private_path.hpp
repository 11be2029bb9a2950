#pragma once

#include <string>

namespace paratune {

/// What a path that must stay its owner's holds: a secret in a file (the
/// relay key, a CURVE key, the dashboard's token), or a directory of
/// sockets and a pool (the daemon's state directory, `tune --db`'s pool).
enum class private_path_kind { secret_file, state_dir };

/// What to do with such a path, as stat(2) found it.
enum class private_path_verdict {
  ok,      ///< use it as it is
  tighten, ///< use it after chmod to `mode_after` (and say so)
  refuse,  ///< do not use it: `problem` says why
};

struct private_path_finding {
  private_path_verdict verdict = private_path_verdict::ok;
  unsigned mode_after = 0; ///< for tighten: the permission bits to set
  std::string problem;     ///< for tighten and refuse: what is wrong, without the path
};

/// The one check of who may reach a private path. Owned by another uid:
/// refused (its owner could swap what is in it). A secret file others may
/// read or write: refused (the secret may be out already). A directory
/// others may write to: refused (they could replace the control socket or
/// the pool's files). A directory others may only read: tightened to 0700
/// (nothing has leaked that the files themselves do not guard). Others'
/// search bit alone (0711) is kept: control_users reach the socket so.
private_path_finding judge_private_path(private_path_kind kind, unsigned owner_uid,
                                        unsigned self_uid, unsigned mode);

/// Permission bits as ls writes them in octal: "0755".
std::string octal_mode(unsigned mode);

} // namespace paratune
