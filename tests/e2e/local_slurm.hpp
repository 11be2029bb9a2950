#pragma once

// What the tests that submit to tools/slurm-local's Slurm share.

#include <cstdlib>
#include <string>

#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

/// Why such a test skips.
inline const char* no_local_slurm =
    "no local Slurm: tools/slurm-local start; eval \"$(tools/slurm-local env)\"";

/// Points sbatch, scontrol and scancel (SLURM_CONF) at the local Slurm and
/// paratune at the checkout's configs/; false when no local Slurm runs
/// (PARATUNE_SLURM_CONF unset).
inline bool use_local_slurm() {
  const char* conf = std::getenv("PARATUNE_SLURM_CONF");
  if (!conf || !*conf)
    return false;
  setenv("SLURM_CONF", conf, 1);
  setenv("PARATUNE_CONFIGS", (source_dir() + "/configs").c_str(), 1);
  return true;
}

} // namespace paratune::test
