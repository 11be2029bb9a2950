// A decision starts nothing: no process, no Slurm job, no file.
#include "decisions/trial_scoring.hpp"
#include "adapters/process/child_process.hpp"
