// What adapters/slurm may use: adapters/process.
#include "adapters/slurm/slurm_cli_client.hpp"
#include "adapters/process/captured_command.hpp"
