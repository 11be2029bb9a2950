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

  int free() const { return capacity > in_flight ? capacity - in_flight : 0; }
};

/// Free slots over the pools that are up; over all of them when every pool
/// is down (a scheduler may come back, and the trial budget bounds the cost).
int free_slots(const std::vector<pool_load>& pools);

/// The pool the next trial goes to, or none while every eligible pool is
/// full. A pool that is up beats one that is down; among those, the one
/// with the most free slots (trials spread over pools), then job order.
/// `avoid` (a failed trial's pool, for its retry) is taken only when no
/// other pool is up; while one is, the retry waits for its free slot.
std::optional<size_t> place_trial(const std::vector<pool_load>& pools,
                                  const std::string& avoid = {});

} // namespace paratune
