#include "core/pool_placement.hpp"

namespace paratune {

namespace {

/// Whether every pool that is not paused is down.
bool all_down(const std::vector<pool_load>& pools) {
  for (const auto& p : pools)
    if (!p.down && !p.paused)
      return false;
  return true;
}

/// Another pool than `avoid` that is up: a retry waits for it.
bool other_pool_up(const std::vector<pool_load>& pools, const std::string& avoid) {
  for (const auto& p : pools)
    if (p.name != avoid && !p.down && !p.paused)
      return true;
  return false;
}

} // namespace

int free_slots(const std::vector<pool_load>& pools) {
  const bool none_up = all_down(pools);
  int n = 0;
  for (const auto& p : pools)
    if (!p.paused && (none_up || !p.down))
      n += p.free();
  return n;
}

bool all_paused(const std::vector<pool_load>& pools) {
  for (const auto& p : pools)
    if (!p.paused)
      return false;
  return !pools.empty();
}

std::optional<size_t> place_trial(const std::vector<pool_load>& pools, const std::string& avoid) {
  const bool avoidable = !avoid.empty() && other_pool_up(pools, avoid);
  const bool none_up = all_down(pools);
  std::optional<size_t> best;
  for (size_t i = 0; i < pools.size(); ++i) {
    const auto& p = pools[i];
    if (p.paused || p.free() == 0 || (avoidable && p.name == avoid) || (p.down && !none_up))
      continue;
    if (!best || p.free() > pools[*best].free())
      best = i;
  }
  return best;
}

std::string paused_pool_text(const std::string& pool, int in_a_row, const std::string& last_error) {
  return "pool '" + pool + "': " + std::to_string(in_a_row) + " trials in a row never started"
         + (last_error.empty() ? std::string() : " (last: " + last_error + ")");
}

} // namespace paratune
