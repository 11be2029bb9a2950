#include "tests/diagnose/diagnose_support.hpp"

#include <cstdlib>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/diagnosis/op_classes.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

void use_source_configs() {
  setenv("PARATUNE_CONFIGS", (source_dir() + "/configs").c_str(), 1);
}

std::string asap_dir(const std::string& scenario) {
  return source_dir() + "/tests/fixtures/asap/" + scenario;
}

experiment_spec load_fixture_experiment(const std::string& dir) {
  use_source_configs();
  return load_experiment(dir + "/experiment.yaml");
}

op_evidence make_op(const std::string& name, const std::string& category, double share,
                    const std::string& bound_by, double flops, double hbm) {
  op_evidence op;
  op.name = name;
  op.category = category;
  op.time_share = share;
  op.bound_by = bound_by;
  op.flops_utilization = flops;
  op.hbm_bw_utilization = hbm;
  op.roofline_efficiency = std::max(flops, hbm);
  op.collective = looks_collective(name, category);
  return op;
}

bool has_note(const proposal_set& s, const std::string& words) {
  for (const auto& n : s.notes)
    if (n.find(words) != std::string::npos)
      return true;
  return false;
}

} // namespace paratune::test
