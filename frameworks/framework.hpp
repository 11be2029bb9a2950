#pragma once

// The seam between paratune's tuning loop and a training framework.
//
// What the loop does with a trial (launch it on a pool, hide the session's
// secrets in its output, end it early, score it, retry it, pause a pool
// that cannot start it) is the same for every framework. What differs is
// behind this interface, one implementation per folder below frameworks/
// (megatron_lm/, maxtext/), each registered with one line:
//
//   static framework_registrar registered{std::make_unique<my_framework>()};
//
// The loop finds a session's framework by the name its records store
// (framework_named) and asks it for a reader of a run's output, the
// variables its trainer needs, and which failures may pass when run again.

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch/launch_template.hpp"
#include "core/logged_failure.hpp"
#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"
#include "core/production_command.hpp"
#include "core/training_config.hpp"
#include "core/trial_environment.hpp"
#include "core/trial_scoring.hpp"

namespace paratune {

/// A trial's configuration by canonical key ("tp" -> "2"; a MaxText mesh's
/// axes), as the records hold it.
using framework_config = std::map<std::string, std::string>;

/// What one trial of a job's layout search (tp, pp, cp, ep, micro-batch,
/// recomputation, overlap flags) is rendered from.
struct trainer_request {
  model_spec model;
  training_config config;
  precision prec = precision::bf16;
  int train_iters = 10;  ///< steps the tuning run trains
  int world_size = 1;    ///< devices the trial runs on
};

/// How a framework's results read in reports: what one training step is
/// called, and what a device-hour is.
struct result_units {
  std::string_view step = "iteration";
  std::string_view device_hours = "GPU-hours";
};

/// Reads one run's output as the framework writes its log, line by line.
/// Every line it is handed has had the session's secrets hidden already
/// (trial_output), so nothing it keeps can hold one.
class run_reader {
public:
  virtual ~run_reader() = default;
  /// Reads one whole line; returns the iterations (steps) it completed, in
  /// order, as the early stopper and the telemetry see them: a step the
  /// framework never scores (compilation is not one; a ramp-up is) is
  /// left out.
  virtual std::vector<iteration_sample> read(std::string_view line) = 0;
  /// The output ended: a last line without newline is read, and a score
  /// that depends on the steps after a step is final.
  virtual void finish() = 0;
  /// How many failures the log named so far.
  virtual std::size_t failure_count() const = 0;
  /// Failure `i` (0: the first), in paratune's classes with the log's own
  /// words; `i` < failure_count().
  virtual logged_failure failure(std::size_t i) const = 0;
  /// The first failure, if the log named one.
  std::optional<logged_failure> first_failure() const {
    return failure_count() > 0 ? std::optional(failure(0)) : std::nullopt;
  }
  /// Whether any line was the framework's own: a trainer that printed none
  /// is not this framework's trainer.
  virtual bool recognised() const = 0;
  /// The largest memory the log reported reserved, MiB; 0 when it reports none.
  virtual double peak_memory_mib() const = 0;
  /// The run's measured step time and throughput over the steps the
  /// framework's own rule scores (`warmup` is the job's; a framework whose
  /// log marks its warm-up steps may ignore it).
  virtual trial_score score(int warmup) const = 0;
};

/// A training framework paratune tunes.
class framework {
public:
  virtual ~framework() = default;
  /// How sessions and job files name it ("megatron-lm", "maxtext").
  virtual std::string_view name() const = 0;
  /// How people name it ("Megatron-LM").
  virtual std::string_view title() const = 0;
  /// The trainer's own arguments for one trial of a job's layout search,
  /// named as the framework names them. Throws input_error with the
  /// framework's own words when it would refuse them (a framework whose
  /// layouts are not a job's, as MaxText's TPU meshes, refuses every one).
  virtual std::vector<std::string> trainer_args(const trainer_request& r) const = 0;
  /// The placeholder its launch templates have always named those
  /// arguments by ({megatron_args}); a framework without one takes only
  /// {framework_args}, and every framework's own name is refused for it.
  virtual launch_field args_field() const { return launch_field::framework_args; }
  /// The flags of trainer_args() that only the tuning run needs (how long
  /// it trains, how often it logs): a production command leaves them out.
  virtual std::span<const measuring_flag> measuring_flags() const { return {}; }
  /// Whether paratune's simulator trains it, so that a job may name
  /// simulated pools (paratune-sim speaks Megatron-LM's arguments and log).
  virtual bool simulated() const { return false; }
  /// What its results are shown in.
  virtual result_units units() const { return {}; }
  /// A reader for one run's output.
  virtual std::unique_ptr<run_reader> reader() const = 0;
  /// The variables this framework's trainer needs, for `config`, on a
  /// simulated pool or a real one (core/trial_environment.hpp's
  /// framework_environment; `inherited` is paratune's own environment).
  virtual env_list environment(const framework_config& config, bool simulated,
                               const env_list& inherited) const = 0;
  /// Whether a run that failed with `first` (the log's first failure, none
  /// when it named none) and `exit_code` may pass when run again unchanged.
  /// By default: a collective that timed out (an NCCL timeout; on a TPU
  /// slice XLA's barrier timeout, a host lost), or, with no failure logged,
  /// the scheduler's 125 (it refused or lost the job). A framework whose
  /// log says more overrides it.
  virtual bool transient(const std::optional<logged_failure>& first, int exit_code) const;
};

/// The framework registered as `name`, or null.
const framework* framework_named(std::string_view name);

/// Every registered framework, in name order.
std::vector<const framework*> registered_frameworks();

/// Registers a framework at static initialisation: one line in its folder.
struct framework_registrar {
  explicit framework_registrar(std::unique_ptr<framework> f);
};

} // namespace paratune
