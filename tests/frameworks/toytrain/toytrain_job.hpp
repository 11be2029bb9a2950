#pragma once

// The job the toytrain tests tune (tests/e2e/toytrain_tune_test.cpp,
// tests/daemon/daemon_toytrain_test.cpp): toytrain's trainer on two local
// pools. Pool `a` loses a peer on its first run (a transient failure, run
// again), every trial is ended once its step time is stable, and the budget
// is six runs.

#include <string>

#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

/// A job file's text for `dir` (the lost-peer marker lives there, the runs
/// in its runs/, which must exist).
inline std::string toytrain_job(const std::string& dir) {
  const auto trainer = "[/usr/bin/python3, \"" + source_dir()
                       + "/tests/frameworks/toytrain/toytrain.py\", \"{framework_args}\"";
  return "name: toytrain-two-pools\n"
         "framework: toytrain\n"
         "model: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\nprecision: bf16\n"
         "initial: {tp: 2, pp: 1, mbs: 1, gbs: 64, seq: 4096, recompute: full}\n"
         "search: {tp: [1, 2, 4], mbs: [1, 2, 4], recompute: [none, selective, full]}\n"
         "trials: 6\nstop: budget\nretry_transient_failures: true\n"
         "simulation: {train_iters: 12}\n"
         "early_stop: {warmup: 2, stable_after: 3, tolerance: 0.05, rung: false}\n"
         "pools:\n"
         "  - {name: a, kind: local, capacity: 1, workdir: \"" + dir + "/runs\", launch: "
         + trainer + ", --lose-peer-once, \"" + dir + "/lost-peer\"]}\n"
         "  - {name: b, kind: local, capacity: 1, workdir: \"" + dir + "/runs\", launch: "
         + trainer + "]}\n";
}

} // namespace paratune::test
