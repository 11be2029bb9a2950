#include "core/production_command.hpp"

#include <algorithm>

namespace paratune {

namespace {

constexpr measuring_flag measuring_flag_table[] = {
  {"--train-iters", 1},
  {"--log-interval", 1},
  {"--log-throughput", 0},
};

// What framework_environment() adds for paratune's sake, not the training's.
bool for_the_measurement(std::string_view name) {
  return name == "PYTHONUNBUFFERED" || name == "PARATUNE_CONFIGS" || name == "PARATUNE_DATA";
}

} // namespace

std::span<const measuring_flag> measuring_flags() {
  return measuring_flag_table;
}

std::vector<std::string> production_args(const std::vector<std::string>& trial_args,
                                         std::span<const measuring_flag> measuring) {
  std::vector<std::string> out;
  for (size_t i = 0; i < trial_args.size(); ++i) {
    const auto& arg = trial_args[i];
    const auto flag = std::find_if(measuring.begin(), measuring.end(),
                                   [&](const measuring_flag& f) { return arg == f.name; });
    if (flag == measuring.end()) {
      out.push_back(arg);
      continue;
    }
    i += size_t(flag->values); // its values go with it
  }
  return out;
}

env_list production_environment(const env_list& framework,
                                const std::map<std::string, std::string>& pool,
                                const std::map<std::string, std::string>& job,
                                const std::set<std::string>& secrets) {
  trial_env_sources from;
  from.pool = pool;
  from.job = job;
  for (const auto& [name, value] : framework)
    if (!for_the_measurement(name))
      from.framework.emplace_back(name, value);
  from.secrets = secrets;
  // Nothing inherited: trial_environment() then holds only the three
  // sources above, with their order of precedence and the secrets left out.
  return trial_environment(from);
}

} // namespace paratune
