#pragma once

#include "core/cluster_spec.hpp"
#include "core/perf/device_profile.hpp"
#include "core/perf/perf_model.hpp"

namespace paratune {

/// The links a communicator group of `size` ranks uses, whose members sit
/// `stride` ranks apart in the global rank order (Megatron orders ranks
/// tp, cp, dp, pp from fastest to slowest varying).
struct group_link {
  int size = 1;
  double bytes_per_s = 0;   ///< bus bandwidth one rank gets, bytes/s
  double latency_s = 0;     ///< per step
  bool crosses_nodes = false;
};

/// Accelerators that share the scale-up link: the ICI slice of a TPU
/// cluster, the NVLink node otherwise.
int scale_up_domain(const cluster_spec& c);

/// How a group is connected. Inside one scale-up domain it runs on NVLink/ICI.
/// Across domains a ring is as fast as the NICs of the group's members in
/// one node together (each GPU drives its own NIC), capped by NVLink.
group_link link_for_group(const cluster_spec& c, const device_profile& prof,
                          const perf_calibration& cal, int size, int stride);

/// Ring collectives, alpha-beta: latency * steps + factor * bytes / bandwidth.
/// `bytes` is the full buffer (the all-reduced tensor, the gathered result).
double all_reduce_time(const group_link& g, double bytes);
double reduce_scatter_time(const group_link& g, double bytes);
double all_gather_time(const group_link& g, double bytes);
/// `bytes` is what one rank holds before the exchange.
double all_to_all_time(const group_link& g, double bytes);
double p2p_time(const group_link& g, double bytes);

} // namespace paratune
