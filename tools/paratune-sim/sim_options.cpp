#include "tools/paratune-sim/sim_options.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/input_error.hpp"
#include "core/value_range.hpp"

namespace paratune::sim {

namespace {

constexpr value_range world_sizes{1, max_devices};

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
    else if (a == "--sim-world-size")
      o.world_size = parse_int_field("argument " + a, value(), world_sizes);
    else if (a == "--sim-seed")
      o.seed = uint64_t(parse_integer("argument " + a, value(), {0, INT64_MAX}));
    else if (a == "--sim-time-scale")
      o.time_scale = parse_real("argument " + a, value(), 0, 1000);
    else if (a == "--sim-failure-rate")
      o.failure_rate = parse_real("argument " + a, value(), 0, 1);
    else if (a == "--sim-hang-at")
      o.hang_at = parse_integer("argument " + a, value(), {1, 1000000});
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
      o.world_size = parse_int_field("environment variable WORLD_SIZE", env, world_sizes);
  if (o.world_size <= 0)
    throw input_error("world size unknown: pass --sim-world-size N or set WORLD_SIZE");
  for (const char* v : {"0.5", "0.8", "0.15", "0.16"})
    if (o.megatron_version == v)
      return o;
  throw input_error("argument --sim-megatron-version: expected 0.5, 0.8, 0.15 or 0.16, got '"
                    + o.megatron_version + "'");
}

} // namespace paratune::sim
