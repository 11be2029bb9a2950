#include "adapters/slurm/slurm_error.hpp"

namespace paratune {

std::string_view to_string(slurm_failure kind) {
  switch (kind) {
    case slurm_failure::invalid_request: return "invalid_request";
    case slurm_failure::unreachable: return "unreachable";
    case slurm_failure::unauthorized: return "unauthorized";
    case slurm_failure::refused: return "refused";
    case slurm_failure::not_found: return "not_found";
    case slurm_failure::malformed: return "malformed";
    case slurm_failure::command_failed: return "command_failed";
  }
  return "command_failed";
}

} // namespace paratune
