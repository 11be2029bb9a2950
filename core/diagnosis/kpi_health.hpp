#pragma once

#include <vector>

#include "core/diagnosis/diagnosis_report.hpp"

namespace paratune {

/// Ranges a healthy training step stays in (ASAP's KPI health check).
struct kpi_thresholds {
  double duty_ok = 90, duty_bad = 70;          ///< % busy
  double comm_ok = 10, comm_bad = 25;          ///< % of device time in collectives
  double memory_warn = 90, memory_bad = 97;    ///< % of device memory
  double flops_ok = 40, flops_bad = 20;        ///< % of peak FLOP/s
  double infeed_ok = 5, infeed_bad = 15;       ///< % waiting for input
  double bubble_ok = 10, bubble_bad = 25;      ///< % pipeline wait
  double jitter_warn = 10;                     ///< step time stddev, % of mean
};

/// Checks every KPI the evidence has; absent KPIs are left out.
std::vector<kpi_check> check_kpis(const kpi_evidence& k, const kpi_thresholds& t = {});

} // namespace paratune
