#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "adapters/megatron/line_values.hpp"
#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// How a logged step counts when a run's throughput is scored. MaxText's
/// step 0 includes XLA's compilation; with asynchronous dispatch a step can
/// be logged as done before the device ran it (PR AI-Hypercomputer/maxtext
/// #4847's log: step 1 in 0.631 s at 5688 TFLOP/s/device, the next steps
/// 10.2 s at 350); the batch-size ramp-up and the steps around the
/// profiler's start and stop print no throughput at all.
enum class step_phase : uint8_t {
  measured,           ///< scored
  compile,            ///< the first step of a run: compilation
  async_dispatch,     ///< timed before the device finished: not scored
  rampup,             ///< `[Rampup Batch Size Phase]`: no throughput printed
  profiler_boundary,  ///< `completed profiler activation/deactivation step: N`
};

/// "measured", "compile", "async_dispatch", "rampup", "profiler_boundary".
const char* to_string(step_phase p);

/// One per-step line of MaxText's metric logger, every form it printed:
///   2023:  completed step: N, seconds: S, TFLOP/s: T, loss: L
///   2024:  completed step: N, seconds: S, TFLOP/s/device: T[, Tokens/s/device: K], loss: L
///   2025:  ..., Tokens/s/device: K, total_weights: W, loss: L
///   2026:  [[Rampup Batch Size Phase], ]completed step: N, seconds: S[, live slice count: C]
///          [, TFLOP/s/device: T, Tokens/s/device: K], total_weights: W, loss: L,
///          lm_loss: M, perplexity: P[, moe_lb_loss: ...]
///   or     completed profiler activation/deactivation step: N, total_weights: ...
struct maxtext_step {
  int64_t step = 0;
  std::optional<double> seconds;
  std::optional<double> tflops_per_device;      ///< `TFLOP/s/device` (2023: `TFLOP/s`)
  std::optional<double> tokens_per_s_per_device;  ///< `Tokens/s/device`
  std::optional<double> total_weights;          ///< non-padding tokens of the step
  std::optional<double> loss, lm_loss, perplexity;
  std::optional<int> live_slices;               ///< `live slice count` (elastic training)
  bool rampup = false;
  bool profiler_boundary = false;
  step_phase phase = step_phase::measured;      ///< set by score_steps()
  line_values values;  ///< every `key: value` of the line, in order, verbatim
  int64_t line = 0;    ///< 1-based line number in the log

  bool scored() const { return phase == step_phase::measured; }
};

/// Everything the reader took from one MaxText log (several runs appended
/// read as one: each run's first step is its compilation).
struct maxtext_log {
  std::vector<maxtext_step> steps;
  std::vector<log_error> errors;  ///< the failure classes Megatron-LM's log has too
  int64_t profiler_sessions = 0;  ///< `Profiler session started.` lines
  std::optional<double> parameters_billion;  ///< `number parameters: 0.596 billion`
  bool partial = false;           ///< an over-long line was cut
  int64_t lines = 0;

  /// A line was MaxText's: a step, an error, a profiler or parameter line.
  bool recognised() const {
    return !steps.empty() || !errors.empty() || profiler_sessions > 0 || parameters_billion;
  }
};

} // namespace paratune
