#pragma once

#include <optional>
#include <string>
#include <vector>

namespace paratune {

/// A pool as the placement of the next trial sees it.
struct pool_load {
  std::string name;
  int capacity = 1;    ///< trials it may run at once
  int in_flight = 0;   ///< trials running or queued on it now
  /// Its latest trial never reached training (the scheduler refused or lost
  /// it, the command did not start): the pool is treated as down until one
  /// of its trials runs again.
  bool down = false;
  /// Its last max_launch_failures trials in a row never reached training:
  /// it gets no more trials this session, down or not, so that a pool that
  /// refuses every job cannot spend the budget.
  bool paused = false;

  int free() const { return capacity > in_flight ? capacity - in_flight : 0; }
};

/// Launch failures in a row that pause a pool: one is a scheduler's
/// hiccup, three the same refusal each time.
inline constexpr int max_launch_failures = 3;

/// Free slots over the pools that are up; over all of them but the paused
/// when every such pool is down (a scheduler may come back for a while).
int free_slots(const std::vector<pool_load>& pools);

/// A paused pool in words: "pool 'a100': 3 trials in a row never started
/// (last: sbatch: error: ...)"; `last_error` may be empty.
std::string paused_pool_text(const std::string& pool, int in_a_row, const std::string& last_error);

/// Whether every pool is paused: no trial can run anywhere.
bool all_paused(const std::vector<pool_load>& pools);

/// The pool the next trial goes to, or none while every eligible pool is
/// full; never a paused pool. A pool that is up beats one that is down; among those, the one
/// with the most free slots (trials spread over pools), then job order.
/// `avoid` (a failed trial's pool, for its retry) is taken only when no
/// other pool is up; while one is, the retry waits for its free slot.
std::optional<size_t> place_trial(const std::vector<pool_load>& pools,
                                  const std::string& avoid = {});

} // namespace paratune
