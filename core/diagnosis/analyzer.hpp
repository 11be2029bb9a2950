#pragma once

#include <cstddef>

#include "core/diagnosis/diagnosis_report.hpp"
#include "core/diagnosis/kpi_health.hpp"

namespace paratune {

struct analyzer_options {
  kpi_thresholds thresholds;
  std::size_t top_n = 5;      ///< operations the report lists and weighs
  /// Weight of the top operations against the whole profile when classes
  /// are scored: what dominates the longest ops counts as much as what
  /// dominates all of them.
  double top_weight = 0.5;
  double min_score = 0.25;    ///< below this the bottleneck is unknown
};

/// ASAP's Analyzer as code: checks the KPIs, classifies the top operations
/// by the resource they are bound by, and correlates both into one
/// bottleneck class with the evidence it rests on.
///
/// Scores (0-1) per class: compute / hbm_bandwidth / communication from the
/// op classes (op_classes.hpp), top_weight on the top_n ops and the rest on
/// all ops read, times the busy share (the ops explain busy time only);
/// communication also from exposed-collective KPIs;
/// memory_capacity from OOM errors and memory use; input_host from a low
/// duty cycle and infeed or data-loading time; pipeline_bubble from
/// Megatron's pipeline wait timers. The highest score wins.
diagnosis_report analyze_evidence(const diagnosis_evidence& e, const analyzer_options& o = {});

} // namespace paratune
