#pragma once

#include <optional>
#include <string>
#include <vector>

#include "storage/message_pool.hpp"

namespace paratune::cli {

/// The best run of a TPU session (ASAP's loop, tpu_session): trial n's
/// records are session "<id>.t<n>", its diagnose_request holding the
/// experiment with that trial's mesh and its diagnosis the measured step.
struct tpu_best_run {
  int trial = 0;
  double step_ms = 0;
  std::string experiment_yaml;
};

/// Whether the pool holds trials of TPU session `id`.
bool has_tpu_trials(const message_pool& pool, const std::string& id);

/// The fastest diagnosed run of `id`; none when no trial was measured.
/// Prints why and returns none as well when the pool does not read, so
/// the caller exits 1 either way.
std::optional<tpu_best_run> best_tpu_run(const message_pool& pool, const std::string& id);

/// The best run a TPU session's own records name: its end record's best
/// trial, in the experiment the session was opened with (its mesh that
/// trial's). None when the session has not ended, measured nothing, or
/// was stored before its first record held the experiment.
std::optional<tpu_best_run> best_tpu_run_in(const std::vector<wire::envelope>& history);

/// The run's mesh and settings as MaxText command-line overrides, named as
/// MaxText's base.yml names them (ici_fsdp_parallelism=..., per_device_batch_size=...,
/// remat_policy=...). Throws input_error when the stored experiment does not read.
std::vector<std::string> maxtext_overrides(const tpu_best_run& run);

} // namespace paratune::cli
