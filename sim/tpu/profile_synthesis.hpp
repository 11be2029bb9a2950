#pragma once

#include <optional>
#include <string>
#include <vector>

#include "adapters/profile/xprof_profile.hpp"

namespace paratune {

/// One operation of a profile being written (a simulated run's, or a
/// fixture's). Shares are fractions 0-1 of total device time.
struct synthetic_op {
  std::string name;
  std::string category;
  double share = 0;
  double flops_utilization = 0;
  double hbm_utilization = 0;
  std::optional<double> roofline_efficiency;  ///< defaults to the larger utilisation
  std::string bound_by;                       ///< Compute, HBM, VMEM Write, Unknown...
  std::uint64_t occurrences = 1;
  double raw_time_ps = 0;                     ///< 0: share x total
};

/// What Xprof would show for a run: KPIs plus the operations.
struct synthetic_profile {
  std::string device_type = "TPU";
  int cores = 0;
  int hosts = 0;
  double step_time_ms = 0;
  double step_stddev_ms = 0;
  double duty_cycle_percent = 100;
  double infeed_percent = 0;
  int steps = 1;                     ///< steps the profile spans
  double peak_flop_gflops = 0;
  double peak_hbm_gibps = 0;
  std::vector<synthetic_op> ops;
};

/// How the part of a profile that nobody listed is filled: the time left
/// after the listed ops and idle, split by resource class into equal ops no
/// longer than `max_share`, plus collectives up to `comm_share` in total.
struct profile_tail {
  int ops = 100;
  double max_share = 0.01;
  double compute = 0.5, hbm = 0.5, unknown = 0;  ///< weights of the non-collective rest
  double comm_share = 0;                         ///< all collectives, listed ones included
  int comm_ops = 4;
};

/// Appends the tail's operations (deterministic names and utilisations).
void fill_tail(synthetic_profile& p, const profile_tail& tail);

/// True for the collective names Xprof's readers recognise.
bool is_collective_name(const std::string& name);

/// The typed profile xprof_writer renders: KPIs (FLOP and HBM utilisation
/// as time-weighted means of the ops), the ops longest first, the roofline
/// peaks and a step table.
xprof_profile to_xprof_profile(const synthetic_profile& p);

} // namespace paratune
