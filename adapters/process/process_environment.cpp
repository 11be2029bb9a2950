#include "adapters/process/process_environment.hpp"

#include <cstdlib>

extern char** environ;

namespace paratune {

process_env environment_of_this_process() {
  process_env env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos && eq > 0)
      env.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return env;
}

std::vector<std::string> values_in_this_process(const std::vector<std::string>& names) {
  std::vector<std::string> values;
  for (const auto& n : names)
    if (const char* v = std::getenv(n.c_str()); v && *v)
      values.emplace_back(v);
  return values;
}

envp_block::envp_block(const process_env& env) {
  entries_.reserve(env.size());
  for (const auto& [name, value] : env)
    entries_.push_back(name + "=" + value);
  for (auto& e : entries_)
    pointers_.push_back(e.data());
  pointers_.push_back(nullptr);
}

} // namespace paratune
