#pragma once

// What a TPU session does next, decided from its ledger alone: the TPU
// searcher (actors/tpu_session) holds no runs. Each trial is a proposal
// the validator runs; the session turns each result into the run's row,
// has a measured run diagnosed, and moves to the next mesh as ASAP's
// diagnosis and the calibrated planner say (core/diagnosis/next_mesh_trial).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/experiment_spec.hpp"
#include "core/diagnosis/next_mesh_trial.hpp"
#include "core/session_state.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// What a TPU session searches under.
struct tpu_search {
  const experiment_spec* experiment = nullptr;
  int budget = 8;               ///< trials at most, retries included
  int max_runs_per_mesh = 2;    ///< a transient failure runs again once
  std::int64_t now_ms = 0;      ///< wall clock, for rows that end now
};

/// The session's next step.
struct tpu_session_step {
  enum class action {
    wait,       ///< trials run or await their diagnosis: nothing until a record comes
    store_row,  ///< a trial's result is in and its row does not say so yet: store `row`
    propose,    ///< run `mesh` as trial `trial` on pool `pool` (a retry of `retry_of` when > 0)
    finish,     ///< nothing runs and nothing can start: the session ends `end`
    fail,       ///< `text` says why (no pool left, a simulator that is not one)
  };
  action what = action::wait;
  wire::tpu_trial_row row;
  int trial = 0;
  mesh_step mesh;
  int retry_of = 0;
  std::string pool;
  session_state end = session_state::finished;
  std::string text;
};

tpu_session_step next_tpu_step(const tpu_search& search, const session_ledger& ledger);

/// The row of a trial whose result came: its step time and MFU, or why it
/// failed or was stopped, and its chip-hours. A measured run that ran to
/// its end is `diagnosing` (ended_ms 0); any other ends with its result.
wire::tpu_trial_row tpu_row_of_result(const experiment_spec& exp, wire::tpu_trial_row row,
                                      const wire::trial_result& r);

/// A diagnosing row once its diagnosis and proposals are in: its
/// bottleneck, the meshes proposed, what its profile says of the model's
/// error, and the mesh the session moves to next (its `next`), ended at
/// `now_ms`.
wire::tpu_trial_row tpu_diagnosed_row(const tpu_search& search, const session_ledger& ledger,
                                      wire::tpu_trial_row row, const wire::diagnosis& d,
                                      const wire::proposal_set& set, std::int64_t now_ms);

/// The fastest complete run among the ended rows (the best), by trial; 0: none.
int tpu_best_ended(const std::map<int, wire::tpu_trial_row>& rows);

} // namespace paratune
