#include "core/initial_check.hpp"

#include <algorithm>

namespace paratune {

std::optional<std::string> outside_search_space(
  const std::map<std::string, std::vector<std::string>>& search, const training_config& initial,
  const training_config& c) {
  for (const auto& key : config_keys()) {
    const auto v = get_value(c, key);
    const auto it = search.find(key);
    const bool ok = it == search.end()
                      ? v == get_value(initial, key) // not tunable: stays fixed
                      : std::find(it->second.begin(), it->second.end(), v) != it->second.end();
    if (!ok)
      return key + "=" + v;
  }
  return std::nullopt;
}

std::string rules_refusal_text(const std::string& what, int world_size,
                               const std::vector<rule_violation>& broken) {
  std::string text = what + " breaks Megatron-LM's rules on " + std::to_string(world_size)
                     + " devices:";
  for (const auto& v : broken)
    text += "\n  [" + v.rule + "] " + v.message;
  return text;
}

std::optional<std::string> initial_refusal(const job_spec& job) {
  const auto broken = check_megatron_rules(job.model, job.initial, job.world_size());
  if (!broken.empty())
    return rules_refusal_text("initial", job.world_size(), broken);
  if (job.start != start_policy::initial)
    return std::nullopt; // trial 1 runs the model's best candidate instead
  if (const auto key = outside_search_space(job.search, job.initial, job.initial))
    return "initial: " + *key + " is outside the search space, and trial 1 runs the initial "
           "configuration (start: initial): add the value to search: " + key->substr(0, key->find('='))
           + ", or change initial";
  return std::nullopt;
}

} // namespace paratune
