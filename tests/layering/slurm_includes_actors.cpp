// The Slurm adapter submits jobs; it does not drive agents.
#include "adapters/slurm/slurm_client.hpp"
#include "actors/runtime.hpp"
