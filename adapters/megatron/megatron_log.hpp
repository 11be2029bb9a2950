#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/megatron/line_values.hpp"
#include "core/logged_failure.hpp"

namespace paratune {

/// One per-iteration line of training_log() (printed by the last rank every
/// --log-interval iterations; the values are averages over that interval).
struct iteration_record {
  int64_t iteration = 0;
  int64_t train_iters = 0;
  double elapsed_ms = 0;                 ///< "elapsed time per iteration (ms)"
  std::optional<double> tflops_per_gpu;  ///< "throughput per GPU (TFLOP/s/GPU)" when printed
  int64_t nan_iterations = 0;           ///< "number of nan iterations" (0 when not printed)
  /// Every `key: value` of the line after the iteration counter, in order,
  /// values trimmed but otherwise verbatim (unknown fork keys included).
  line_values values;
  int64_t line = 0;  ///< 1-based line number in the log

  /// "2024-04-06 02:59:36" of "[2024-04-06 02:59:36]" when printed (0.6+).
  std::optional<std::string_view> timestamp() const {
    const auto stamp = values.tag();
    return stamp.empty() ? std::nullopt : std::optional<std::string_view>(stamp);
  }
};

/// One `[Rank N] (after I iterations) memory (MB) | ...` report. Megatron's
/// "MB" is MiB (bytes / 1024²).
struct memory_record {
  int rank = 0;
  int64_t iteration = 0;
  double allocated_mib = 0, max_allocated_mib = 0, reserved_mib = 0, max_reserved_mib = 0;
  int64_t line = 0;
  std::optional<double> device_used_mib;  ///< "total device memory used" (--log-device-memory-used)
};

enum class log_error_kind { oom, nccl_timeout, config_invalid, nan, other };

/// "oom", "nccl_timeout", "config_invalid", "nan" or "other".
const char* to_string(log_error_kind);

/// A failure the log reports. `message` is the line without launcher prefix.
struct log_error {
  log_error_kind kind = log_error_kind::other;
  int64_t line = 0;
  std::string message;
};

/// `e` in paratune's failure classes, with the log's own words: what a run
/// reader hands the trial runner (Megatron-LM's and MaxText's alike).
logged_failure logged_failure_of(const log_error& e);

/// report_theoretical_memory() output (rank 0, after the first iterations).
/// Each field is absent until its line was seen; the last run in a file wins.
struct theoretical_memory {
  std::optional<double> weight_and_optimizer_mb, activation_mb, total_mb;
  std::optional<double> params_billion, most_loaded_shard_billion;
  std::optional<double> transformer_params_billion, embedding_params_billion;
  std::optional<double> other_shards_billion;
  std::optional<double> activation_per_layer_mb;
  /// "Theoretical memory footprints not yet supported for hybrid ..." seen.
  bool unsupported = false;
};

/// One timer, in ms. `min_ms` is absent for the `max` timing-log option and
/// for the pre-core one-line form, which print a single value.
struct timer_value {
  std::string name;
  std::optional<double> min_ms;
  double max_ms = 0;
};

/// One block of timers, printed after an iteration line (or at startup).
struct timer_report {
  int64_t iteration = 0;  ///< last iteration logged before it; 0 at startup
  int64_t line = 0;       ///< line of the header (or of the one-line form)
  std::vector<timer_value> timers;
};

/// `using world size: 8, data-parallel size: 1, ...` (rank 0, startup).
struct parallel_layout {
  std::optional<int> world_size, data_parallel, context_parallel, tensor_parallel,
      pipeline_parallel;
  int64_t line = 0;
};

/// ` validation loss at iteration 100 | lm loss value: ... | lm loss PPL: ... |`
struct validation_record {
  int64_t iteration = 0;
  line_values values;
  int64_t line = 0;
};

/// `[after megatron is initialized] datetime: 2024-08-26 12:59:38`
struct datetime_marker {
  std::string name;
  std::string timestamp;
  int64_t line = 0;
};

/// ` > number of parameters on (tensor, pipeline) model parallel rank (0, 1): 50370560`
struct rank_parameters {
  int tensor_rank = 0;
  int pipeline_rank = 0;
  int64_t parameters = 0;
};

/// Everything the parser read from one log (possibly several runs appended).
struct megatron_log {
  std::vector<iteration_record> iterations;
  std::vector<memory_record> memory;
  std::vector<log_error> errors;
  std::map<std::string, std::string> args;  ///< the argument dump, values as Python str()
  theoretical_memory theory;
  std::vector<timer_report> timers;
  std::optional<parallel_layout> layout;
  std::optional<int> num_microbatches;  ///< "setting number of micro(-)batches to constant N"
  std::vector<validation_record> validations;
  std::vector<datetime_marker> markers;
  std::vector<rank_parameters> parameters;
  std::optional<std::string> exit_reason;  ///< "exiting program ..." text
  /// True when some input was not read as written: a line longer than the
  /// cap was cut. A log that simply ends mid-line is not partial.
  bool partial = false;
  int64_t lines = 0;

  /// True when at least one line was recognised as Megatron-LM's: a log
  /// with none (random bytes, another program's output) is not an empty
  /// training run, and readers say so rather than report nothing.
  bool recognised() const;
};

/// The value of `key` in an iteration line, if printed.
std::optional<std::string_view> find_value(const iteration_record& r, std::string_view key);

/// The value of `key` read as a number (leading number of the value), if
/// printed and numeric.
std::optional<double> find_number(const iteration_record& r, std::string_view key);

} // namespace paratune
