#include "core/tuning/tuning_context.hpp"

#include "core/text.hpp"

namespace paratune {

std::string display_name(const std::string& key) {
  const auto* k = find_config_key(key);
  return k ? k->display : upper(key);
}

std::string change_text(const std::vector<config_change>& changes) {
  std::string out = "Change ";
  for (size_t i = 0; i < changes.size(); ++i) {
    if (i > 0)
      out += i + 1 == changes.size() ? " and " : ", ";
    out += display_name(changes[i].key) + " from " + changes[i].from + " to "
           + changes[i].to;
  }
  return out + ".";
}

std::vector<config_change> diff(const training_config& from,
                                const training_config& to) {
  std::vector<config_change> out;
  for (const auto& key : config_keys()) {
    auto a = get_value(from, key);
    auto b = get_value(to, key);
    if (a != b)
      out.push_back({key, a, b});
  }
  return out;
}

} // namespace paratune
