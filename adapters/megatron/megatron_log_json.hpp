#pragma once

#include <nlohmann/json.hpp>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// The parsed log as JSON (what `paratune parse-log --json` prints):
///   iterations         [{iteration, train_iters, elapsed_ms, tflops_per_gpu (when printed),
///                        timestamp (when printed), line, values: {key: value}}]
///   memory             [{rank, iteration, allocated_mib, max_allocated_mib, reserved_mib,
///                        max_reserved_mib, line}]
///   errors             [{kind: oom|nccl_timeout|config_invalid|nan|other, line, message}]
///   args               {name: value as Python str()}
///   theoretical_memory {weight_and_optimizer_mb, activation_mb, total_mb, params_billion, ...}
///                      (null where not printed)
///   timers, layout, num_microbatches, validations, markers, parameters,
///   exit_reason, lines, partial
/// Log text that is not valid UTF-8 is repaired (U+FFFD) so dump() never throws.
nlohmann::json to_json(const megatron_log& log);

} // namespace paratune
