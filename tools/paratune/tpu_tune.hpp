#pragma once

#include <cstdint>
#include <string>

namespace paratune::cli {

struct tpu_tune_options {
  std::string experiment_file;
  std::string db = "paratune-pool";
  int trials = 0;      ///< 0: the experiment's `trials`, else 8
  std::uint64_t seed = 1;
  bool json = false;
};

/// The closed loop on a simulated TPU slice, with ASAP's agents on the bus:
/// run the mesh on paratune-tpu-sim (which writes Xprof tool outputs), send
/// the profile to the Analyzer, take the Proposal agent's best proposal not
/// yet run, and repeat. Every run's diagnosis and proposals are stored in
/// the pool; an improvement is added to the history ledger, so later
/// diagnoses can cite it. Returns the process exit status.
int run_tpu_tune(const tpu_tune_options& o);

} // namespace paratune::cli
