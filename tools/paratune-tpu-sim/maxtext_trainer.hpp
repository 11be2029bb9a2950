#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paratune::tpusim {

/// What `paratune-tpu-sim train` is given: what MaxText's train.py is
/// (`python3 -m MaxText.train CONFIG key=value ...`), with paratune's
/// experiment file as the config, plus the simulator's own seed and clock.
struct trainer_options {
  std::string config;                  ///< the experiment file (YAML): model, slice, workload
  std::vector<std::string> overrides;  ///< MaxText's key=value overrides, in order
  std::uint64_t seed = 1;              ///< the simulated cluster's hidden truth
  double time_scale = 0;               ///< wall seconds slept per simulated second
  /// The chance that a run loses a host mid-run (XLA's barrier timeout),
  /// drawn per seed, mesh and run_name: a run again under another name
  /// draws anew, as a retry on real hardware would.
  double failure_rate = 0;
};

/// Runs the simulated training as MaxText would, and returns the exit
/// status train.py would end with:
/// - MaxText's start-up checks (core/tpu's rule table) refuse what MaxText
///   refuses: its traceback's last lines on stderr, exit 1;
/// - an override MaxText's config would refuse (not key=value, a value of
///   the wrong kind) ends the same way with a ValueError, and so does a
///   model that is not the experiment's (the model_name's file under the
///   keys written: sizes, decoder block, rope, epsilon, biases);
/// - XLA's RESOURCE_EXHAUSTED (out of HBM) or INVALID_ARGUMENT at
///   compilation: exit 1;
/// - with `failure_rate`, a host lost mid-run: the coordination service's
///   DEADLINE_EXCEEDED barrier timeout after some steps, exit 1;
/// - otherwise `steps` (default 10) per-step lines of MaxText's metric
///   logger behind absl's prefix, step 0 with the compilation in it, and,
///   with `profiler=xplane`, the raw XSpace under
///   `<base_output_directory>/<run_name>/tensorboard/plugins/profile/<time>/`;
///   exit 0.
/// Keys MaxText has that the simulation does not read (dataset, paths) are
/// accepted and have no effect, as a flag MaxText accepts must be.
int run_trainer(const trainer_options& options);

} // namespace paratune::tpusim
