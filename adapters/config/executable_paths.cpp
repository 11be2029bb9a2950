#include "adapters/config/executable_paths.hpp"

#include <cstdlib>

#include "core/input_error.hpp"

namespace paratune {

namespace fs = std::filesystem;

namespace {

// perf/ marks a data directory: validate-model needs it, and it keeps an
// unrelated data/ folder above the build tree from being taken for ours.
bool holds_data(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "perf", ec);
}

// A directory the user named is used or refused, never silently skipped.
std::string named_data_dir(const std::string& dir, const std::string& named_by) {
  if (!holds_data(dir))
    throw input_error(named_by + " '" + dir + "': no perf/ in it");
  return dir;
}

} // namespace

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

std::string find_data_dir(const std::string& given) {
  if (!given.empty())
    return named_data_dir(given, "--data");
  if (const char* env = std::getenv("PARATUNE_DATA"); env && *env)
    return named_data_dir(env, "PARATUNE_DATA");
  if (auto dir = find_above_executable("data", holds_data))
    return dir->string();
  throw input_error("cannot find the data directory: no data/ holding perf/ above '"
                    + executable_dir().string() + "'; give --data DIR or set PARATUNE_DATA");
}

} // namespace paratune
