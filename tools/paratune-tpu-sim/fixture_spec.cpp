#include "tools/paratune-tpu-sim/fixture_spec.hpp"

#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"

namespace paratune::tpusim {

using yaml_fields::optional;
using yaml_fields::required;

namespace {

synthetic_op read_op(const YAML::Node& n, const std::string& where) {
  synthetic_op op;
  op.name = required<std::string>(n, "name", where);
  const auto at = where + ": " + op.name;
  op.category = required<std::string>(n, "category", at);
  op.share = required<double>(n, "share_percent", at) / 100;
  op.bound_by = required<std::string>(n, "bound_by", at);
  op.flops_utilization = optional<double>(n, "flops_utilization", at, 0);
  op.hbm_utilization = optional<double>(n, "hbm_utilization", at, 0);
  if (n["roofline_efficiency"])
    op.roofline_efficiency = required<double>(n, "roofline_efficiency", at);
  op.occurrences = optional<std::uint64_t>(n, "occurrences", at, 1);
  op.raw_time_ps = optional<double>(n, "raw_time_ps", at, 0);
  return op;
}

profile_tail read_tail(const YAML::Node& n, const std::string& where, double comm_percent) {
  profile_tail t;
  t.comm_share = comm_percent / 100;
  if (!n)
    return t;
  const auto at = where + ": tail";
  t.ops = optional<int>(n, "ops", at, 100);
  t.max_share = optional<double>(n, "max_share_percent", at, 1.0) / 100;
  t.compute = optional<double>(n, "compute", at, 0.5);
  t.hbm = optional<double>(n, "hbm", at, 0.5);
  t.unknown = optional<double>(n, "unknown", at, 0.0);
  t.comm_ops = optional<int>(n, "comm_ops", at, 4);
  return t;
}

} // namespace

synthetic_profile load_fixture_spec(const std::string& path) {
  const auto root = yaml_fields::load_file(path);
  synthetic_profile p;
  p.device_type = required<std::string>(root, "device_type", path);
  p.cores = optional<int>(root, "cores", path, 0);
  p.hosts = optional<int>(root, "hosts", path, 0);
  p.steps = optional<int>(root, "steps", path, 1);
  p.step_time_ms = required<double>(root, "step_time_ms", path);
  p.step_stddev_ms = optional<double>(root, "step_stddev_ms", path, 0);
  p.duty_cycle_percent = required<double>(root, "duty_cycle_percent", path);
  p.peak_flop_gflops = optional<double>(root, "peak_flop_gflops", path, 0);
  p.peak_hbm_gibps = optional<double>(root, "peak_hbm_gibps", path, 0);
  const auto ops = root["ops"];
  if (!ops || !ops.IsSequence())
    throw input_error(path + ": expected a list under 'ops'");
  for (const auto& n : ops)
    p.ops.push_back(read_op(n, path));
  const double comm = required<double>(root, "comm_percent", path);
  fill_tail(p, read_tail(root["tail"], path, comm));
  return p;
}

} // namespace paratune::tpusim
