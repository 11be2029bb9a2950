#include "core/tuning/tuning_context.hpp"

#include <map>

#include "core/text.hpp"

namespace paratune {

std::string display_name(const std::string& key) {
  static const std::map<std::string, std::string> names = {
    {"mbs", "MBS"}, {"gbs", "GLOBAL_BATCH_SIZE"}, {"seq", "SEQ_LENGTH"},
    {"recompute", "AC"}, {"recompute_layers", "AC_LAYERS"},
    {"recompute_method", "AC_METHOD"},
    {"overlap_grad", "OVERLAP_GRAD_REDUCE"},
    {"overlap_param", "OVERLAP_PARAM_GATHER"},
    {"fused_ce", "FUSED_CROSS_ENTROPY"},
    {"first_pp_layers", "FIRST_PP_NUM_LAYERS"},
    {"last_pp_layers", "LAST_PP_NUM_LAYERS"},
    {"dist_opt", "DISTRIBUTED_OPTIMIZER"}, {"sp", "SEQUENCE_PARALLEL"}};
  if (auto it = names.find(key); it != names.end())
    return it->second;
  return upper(key);
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
