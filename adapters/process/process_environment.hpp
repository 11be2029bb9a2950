#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace paratune {

/// An environment as NAME, value pairs (core/trial_environment.hpp's env_list).
using process_env = std::vector<std::pair<std::string, std::string>>;

/// This process's environment, read once per call from `environ`: what a
/// trial's environment is chosen from, never handed down whole.
process_env environment_of_this_process();

/// The values these variables have in this process's environment, unset
/// and empty ones left out: the secrets a redactor hides.
std::vector<std::string> values_in_this_process(const std::vector<std::string>& names);

/// NAME=value strings and a NULL-terminated array over them, built before
/// fork (a child of a threaded process must not allocate), for execve.
class envp_block {
public:
  explicit envp_block(const process_env& env);
  envp_block(const envp_block&) = delete;
  envp_block& operator=(const envp_block&) = delete;
  char** get() { return pointers_.data(); }

private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
};

} // namespace paratune
