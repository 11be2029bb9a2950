#include "tools/paratune-sim/sim_options.hpp"

#include <cstdlib>
#include <string_view>

#include "core/input_error.hpp"

namespace paratune::sim {

namespace {

double to_double(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    double x = std::stod(v, &used);
    if (used == v.size())
      return x;
  } catch (const std::exception&) {
  }
  throw input_error("argument " + flag + ": expected a number, got '" + v + "'");
}

} // namespace

sim_options parse_sim_options(int argc, char** argv) {
  sim_options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw input_error("argument " + a + ": expected a value");
      return argv[++i];
    };
    if (a == "--sim-cluster") o.cluster = value();
    else if (a == "--sim-world-size") o.world_size = int(to_double(a, value()));
    else if (a == "--sim-seed") o.seed = uint64_t(to_double(a, value()));
    else if (a == "--sim-time-scale") o.time_scale = to_double(a, value());
    else if (a == "--sim-failure-rate") o.failure_rate = to_double(a, value());
    else if (a == "--sim-megatron-version") o.megatron_version = value();
    else if (a == "--evaluate") o.evaluate = true;
    else if (a == "--json") o.json = true;
    else {
      // Megatron's own flag: kept for its parser, noted for the output.
      o.log_throughput = o.log_throughput || a == "--log-throughput";
      o.megatron_args.push_back(a);
    }
  }
  if (o.world_size == 0)
    if (const char* env = std::getenv("WORLD_SIZE"))
      o.world_size = std::atoi(env);
  if (o.world_size <= 0)
    throw input_error("world size unknown: pass --sim-world-size N or set WORLD_SIZE");
  for (const char* v : {"0.5", "0.8", "0.15", "0.16"})
    if (o.megatron_version == v)
      return o;
  throw input_error("argument --sim-megatron-version: expected 0.5, 0.8, 0.15 or 0.16, got '"
                    + o.megatron_version + "'");
}

} // namespace paratune::sim
