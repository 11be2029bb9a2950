#include "adapters/slurm/slurm_state.hpp"

#include <array>
#include <utility>

namespace paratune {

namespace {

// Slurm's words (src/common/slurm_protocol_defs.c, job_state_string) and
// the state paratune treats each as. A job that is configuring, requeued or
// held has not started its script: pending. BOOT_FAIL is a node's fault;
// DEADLINE ends a job for running out of time, like TIMEOUT.
constexpr std::array<std::pair<std::string_view, slurm_state>, 22> words{{
    {"PENDING", slurm_state::pending},
    {"CONFIGURING", slurm_state::pending},
    {"REQUEUED", slurm_state::pending},
    {"REQUEUE_HOLD", slurm_state::pending},
    {"REQUEUE_FED", slurm_state::pending},
    {"RESV_DEL_HOLD", slurm_state::pending},
    {"RUNNING", slurm_state::running},
    {"COMPLETING", slurm_state::completing},
    {"STAGE_OUT", slurm_state::completing},
    {"SIGNALING", slurm_state::completing},
    {"COMPLETED", slurm_state::completed},
    {"FAILED", slurm_state::failed},
    {"CANCELLED", slurm_state::cancelled},
    {"TIMEOUT", slurm_state::timeout},
    {"DEADLINE", slurm_state::timeout},
    {"NODE_FAIL", slurm_state::node_fail},
    {"BOOT_FAIL", slurm_state::node_fail},
    {"OUT_OF_MEMORY", slurm_state::out_of_memory},
    {"PREEMPTED", slurm_state::preempted},
    // Suspended and stopped jobs may resume; paratune cannot tell how long.
    {"SUSPENDED", slurm_state::unknown},
    {"STOPPED", slurm_state::unknown},
    {"SPECIAL_EXIT", slurm_state::failed},
}};

} // namespace

slurm_state parse_slurm_state(std::string_view text) {
  text = text.substr(0, text.find('+'));  // "CANCELLED+" from squeue/sacct
  for (const auto& [word, state] : words)
    if (text == word)
      return state;
  return slurm_state::unknown;
}

std::string_view to_string(slurm_state state) {
  switch (state) {
    case slurm_state::pending: return "pending";
    case slurm_state::running: return "running";
    case slurm_state::completing: return "completing";
    case slurm_state::completed: return "completed";
    case slurm_state::failed: return "failed";
    case slurm_state::cancelled: return "cancelled";
    case slurm_state::timeout: return "timeout";
    case slurm_state::node_fail: return "node_fail";
    case slurm_state::out_of_memory: return "out_of_memory";
    case slurm_state::preempted: return "preempted";
    case slurm_state::unknown: return "unknown";
  }
  return "unknown";
}

bool is_final(slurm_state state) {
  switch (state) {
    case slurm_state::completed:
    case slurm_state::failed:
    case slurm_state::cancelled:
    case slurm_state::timeout:
    case slurm_state::node_fail:
    case slurm_state::out_of_memory:
    case slurm_state::preempted: return true;
    default: return false;
  }
}

} // namespace paratune
