#include "adapters/config/private_dir.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include "core/input_error.hpp"
#include "core/private_path.hpp"

namespace paratune {

std::string prepare_private_dir(const std::string& dir, const std::string& label) {
  const auto where = label + ": " + dir;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT)
      throw input_error(where + ": cannot stat it: " + std::strerror(errno));
    std::error_code made;
    std::filesystem::create_directories(dir, made);
    if (made)
      throw input_error(where + ": cannot make it: " + made.message());
    // Made private before anything is put in it, whatever the umask.
    if (::chmod(dir.c_str(), 0700) != 0 || ::stat(dir.c_str(), &st) != 0)
      throw input_error(where + ": cannot make it private: " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode))
    throw input_error(where + " is not a directory");
  const auto found = judge_private_path(private_path_kind::state_dir, unsigned(st.st_uid),
                                        unsigned(::geteuid()), unsigned(st.st_mode & 07777));
  switch (found.verdict) {
    case private_path_verdict::ok: return {};
    case private_path_verdict::refuse: throw input_error(where + " " + found.problem);
    case private_path_verdict::tighten:
      if (::chmod(dir.c_str(), found.mode_after) != 0)
        throw input_error(where + " " + found.problem + ", but chmod failed: "
                          + std::strerror(errno));
      return where + " " + found.problem;
  }
  return {};
}

} // namespace paratune
