#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_evidence.hpp"
#include "core/diagnosis/op_classes.hpp"

namespace paratune {

/// What limits a training step, as the Analyzer classifies it.
enum class bottleneck_class {
  compute,          ///< the matrix units are the limit: busy and efficient
  hbm_bandwidth,    ///< memory-bound ops (and collectives streaming through HBM)
  memory_capacity,  ///< out of memory, or at the edge of it
  communication,    ///< collectives waiting on ICI / NVLink / network
  pipeline_bubble,  ///< pipeline stages waiting for each other
  input_host,       ///< the device waits for input or for the host
  unknown,          ///< the evidence does not say
};

const char* to_string(bottleneck_class b);
bool parse_bottleneck(const std::string& text, bottleneck_class& out);

/// The bottleneck an op class's time counts toward: each class its own,
/// host_transfer input_host (the device waits for the host).
bottleneck_class bottleneck_of(op_class c);

/// One KPI against its healthy range.
struct kpi_check {
  std::string name;     ///< "step_time", "duty_cycle", "communication", "memory", ...
  double value = 0;
  std::string unit;     ///< "ms", "%"
  std::string status;   ///< ok, warn, bad, info, implausible (plausibility.hpp)
  std::string note;     ///< the range and what the value means
};

/// One of the top operations with its classification.
struct top_op {
  std::string name;
  std::string category;
  double time_share = 0;            ///< fraction 0-1
  double flops_utilization = -1;    ///< fraction, -1 when unknown
  double hbm_bw_utilization = -1;   ///< fraction, -1 when unknown
  double roofline_efficiency = -1;  ///< fraction, -1 when unknown
  std::string bound_by;
  op_class resource = op_class::unknown;
  std::string why;
};

/// The Analyzer's structured report.
struct diagnosis_report {
  device_platform platform = device_platform::tpu;
  bottleneck_class bottleneck = bottleneck_class::unknown;
  bottleneck_class secondary = bottleneck_class::unknown;
  double confidence = 0;                   ///< 0-1: how clearly the evidence points
  std::vector<kpi_check> kpis;
  std::vector<top_op> top_ops;             ///< the five longest, longest first
  /// Share of profiled op time per resource class (all ops read), 0-1.
  std::map<std::string, double> time_by_class;
  /// Collective timers of a Megatron log, ms per iteration (which
  /// collective the step waits on: grads, params, embedding ...).
  std::map<std::string, double> collective_ms;
  /// The score of every candidate class, 0-1.
  std::map<std::string, double> scores;
  std::vector<std::string> evidence;       ///< the facts the class rests on
  std::string summary;                     ///< one paragraph
  std::vector<std::string> sources;
  bool partial = false;
  std::vector<std::string> warnings;
};

} // namespace paratune
