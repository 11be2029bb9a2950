#include "adapters/config/executable_paths.hpp"

#include <cstdlib>

namespace paratune {

namespace fs = std::filesystem;

fs::path executable_dir() {
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::string sibling_executable(const std::string& name, const char* env_var) {
  if (const char* env = std::getenv(env_var); env && *env)
    return env;
  return (executable_dir() / name).string();
}

std::optional<fs::path> find_above_executable(const std::string& child,
                                              const std::function<bool(const fs::path&)>& accept) {
  for (auto dir = executable_dir(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path())
    if (accept(dir / child))
      return dir / child;
  return std::nullopt;
}

} // namespace paratune
