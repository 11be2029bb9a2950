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
    const std::string_view a = argv[i];
    o.help = o.help || a == "-h" || a == "--help";
    o.version = o.version || a == "--version";
  }
  if (o.help || o.version)
    return o;
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

const char* sim_usage() {
  return R"(usage: paratune-sim [--sim-* options] MEGATRON-ARGS...
       paratune-sim --evaluate [--json] [--sim-* options] MEGATRON-ARGS...

A simulated GPU cluster that runs "Megatron-LM": it takes every option of
Megatron-LM's pretrain_gpt.py (modelling some, ignoring the rest), refuses an
unknown one as argparse does (exit 2), refuses what Megatron-LM refuses at
start-up with Megatron-LM's own exception (exit 1), and prints what
Megatron-LM prints, with time and memory from a hidden ground truth.

  --sim-cluster NAME|FILE       the cluster (default dgx-a100-80g)
  --sim-world-size N            GPUs in the job (default $WORLD_SIZE)
  --sim-seed S                  noise and injected failures (default 1)
  --sim-time-scale X            wall seconds per simulated second (default 0.0002)
  --sim-failure-rate P          NCCL timeouts and lost nodes, 0..1 (default 0.03)
  --sim-hang-at N               iteration N never finishes
  --sim-megatron-version V      0.5, 0.8, 0.15 or 0.16 (default 0.15)
  --evaluate                    print the ground truth for the configuration, run nothing
  --json                        with --evaluate: as JSON
  -h, --help                    this text
  --version                     the version
)";
}

} // namespace paratune::sim
