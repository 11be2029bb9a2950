#pragma once

#include <optional>
#include <string_view>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// The failure a MaxText line (absl prefix removed) reports, in the classes
/// paratune's failure analysis has (log_error_kind, failure_kind):
///   oom             XLA's `RESOURCE_EXHAUSTED` (at compile time, "Ran out
///                   of memory in memory space hbm", or at run time, "Error
///                   allocating device buffer"), and any GPU out-of-memory text
///   config_invalid  a MaxText start-up refusal of core/tpu's rule table
///                   (the mesh product, MoE widths, remat names) or of its
///                   mesh filling, a compilation failure that is not a memory
///                   one (`XLA:TPU compile permanent error`,
///                   `INVALID_ARGUMENT`), and any AssertionError or
///                   ValueError exception line
///   nccl_timeout    XLA's coordination service: `Barrier timed out`, a host
///                   of the slice that never reached a barrier (transient)
///   nan             metric_logger's `Aborting training due to NaN loss.`
///                   (and Inf)
///   then what Megatron-LM's classifier reads (CUDA texts for MaxText on
///   GPUs, NCCL watchdogs, other exception lines), or nothing.
std::optional<log_error_kind> classify_maxtext_error(std::string_view text);

} // namespace paratune
