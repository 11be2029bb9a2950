#pragma once

#include <nlohmann/json.hpp>

#include "adapters/maxtext/maxtext_log.hpp"

namespace paratune {

/// The parsed log as JSON (what `paratune parse-log --json` prints for a
/// MaxText log), in the shape of Megatron-LM's:
///   format      "maxtext"
///   iterations  [{iteration, elapsed_ms, tflops_per_device, tokens_per_s_per_device,
///                 total_weights, loss, lm_loss, perplexity, live_slices (each when
///                 printed), phase, scored, line, values: {key: value}}]
///   score       {scored, elapsed_ms, tflops_per_device, tokens_per_s_per_device}:
///               the means over the scored steps
///   errors      [{kind: oom|nccl_timeout|config_invalid|nan|other, line, message}]
///   profiler_sessions, parameters_billion (null when not printed), lines, partial
nlohmann::json to_json(const maxtext_log& log);

} // namespace paratune
