#include "core/job_spec.hpp"

namespace paratune {

namespace {

std::vector<std::string> powers_of_two_dividing(int n, int limit) {
  std::vector<std::string> out;
  for (int v = 1; v <= limit; v *= 2)
    if (n % v == 0)
      out.push_back(std::to_string(v));
  return out;
}

} // namespace

std::map<std::string, std::vector<std::string>>
default_search_space(const model_spec& m, const cluster_spec& c, int world_size,
                     const training_config& initial) {
  std::map<std::string, std::vector<std::string>> s;
  // TP stays inside the scale-up domain; PP up to 8 stages.
  s["tp"] = powers_of_two_dividing(world_size, c.devices_per_node);
  s["pp"] = powers_of_two_dividing(world_size, 8);
  s["mbs"] = powers_of_two_dividing(initial.gbs, 8);
  s["recompute"] = {"none", "selective", "full"};
  s["recompute_layers"] = {"0", "1", "2", "4"};
  s["sp"] = {"false", "true"};
  s["dist_opt"] = {"false", "true"};
  s["overlap_grad"] = {"false", "true"};
  s["overlap_param"] = {"false", "true"};
  s["fused_ce"] = {"false", "true"};
  s["first_pp_layers"] = {"0", "4"};
  s["last_pp_layers"] = {"0", "4"};
  if (m.is_moe())
    s["ep"] = powers_of_two_dividing(m.experts, c.devices_per_node);
  return s;
}

} // namespace paratune
