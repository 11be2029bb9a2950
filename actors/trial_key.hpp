#pragma once

// Small helpers the validator and the telemetry agent share.

#include <chrono>
#include <cstdint>
#include <string>

namespace paratune {

/// "SESSION/TRIAL": how the validator and the telemetry agent key a trial's
/// state (and the relay its child process).
inline std::string trial_key_of(const std::string& session, int trial) {
  return session + "/" + std::to_string(trial);
}

/// Wall-clock milliseconds since the epoch, as records carry them.
inline int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch()).count();
}

} // namespace paratune
