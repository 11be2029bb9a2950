#pragma once

#include <string>

namespace paratune {

/// When a running trial has told all it will tell (the job file's
/// `early_stop:`). OptiCo runs every trial to the end; most of a trial's GPU
/// hours are spent after its throughput is already known, or already known
/// to lose. core/tuning/early_stop.hpp applies it.
struct early_stop_policy {
  int warmup = 2;          ///< logged iterations never scored (allocator, NCCL rings)
  int stable_after = 5;    ///< scored iterations whose spread decides "stable"
  double tolerance = 0.02; ///< relative spread (max - min) / median that counts as stable
  bool rung = true;        ///< stop a trial that cannot beat the incumbent
  double hang_s = 300;     ///< no new line for this long: hung
  double wall_s = 3600;    ///< the longest a trial may run

  friend bool operator==(const early_stop_policy&, const early_stop_policy&) = default;
};

/// Why a trial was ended before its command finished.
/// `cancelled`: not the early stopper's choice but its session's end (a
/// user cancelled it); the trial's partial measurements are not scored.
enum class stop_reason { none, stable, cannot_beat_incumbent, failure, hang, wall_clock, cancelled };

const char* to_string(stop_reason r);
bool parse_stop_reason(const std::string& text, stop_reason& out);

} // namespace paratune
