#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paratune::sim {

/// paratune-sim's own options; every other argument is a Megatron-LM flag.
struct sim_options {
  std::string cluster = "dgx-a100-80g";   ///< --sim-cluster NAME|FILE
  int world_size = 0;                     ///< --sim-world-size N (else $WORLD_SIZE)
  uint64_t seed = 1;                      ///< --sim-seed S: noise and injected failures
  double time_scale = 0.0002;             ///< --sim-time-scale X: wall seconds per simulated second
  double failure_rate = 0.03;             ///< --sim-failure-rate P: NCCL timeouts and node losses
  /// --sim-hang-at N: iteration N never finishes and nothing more is
  /// printed, as when a collective waits on a peer that is gone (0: never).
  int64_t hang_at = 0;
  std::string megatron_version = "0.15";  ///< --sim-megatron-version 0.5|0.8|0.15|0.16
  bool evaluate = false;                  ///< --evaluate: print the truth, do not run
  bool json = false;                      ///< --json (with --evaluate)
  bool log_throughput = false;            ///< Megatron's --log-throughput was given
  bool help = false;                      ///< -h/--help: print the usage, run nothing
  bool version = false;                   ///< --version: print it, run nothing
  std::vector<std::string> megatron_args;
};

/// Splits argv into sim options and Megatron arguments. Throws input_error.
/// -h, --help or --version anywhere wins over every other argument, as
/// argparse's help action does: nothing else is checked.
sim_options parse_sim_options(int argc, char** argv);

/// What --help prints: paratune-sim's own options, then how Megatron-LM's
/// are read.
const char* sim_usage();

} // namespace paratune::sim
