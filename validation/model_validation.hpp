#pragma once

// The performance model against the published tables: per row, predicted
// versus measured; per table, the summary statistics and the gates that
// docs/performance_model.md states (the same as tests/perf/validation_*).

#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "validation/published_tables.hpp"

namespace paratune {

/// One predicted value next to its measurement.
struct compared_value {
  std::string what;           ///< "TFLOP/s", "time full recompute (s)"
  double predicted = 0;
  double measured = 0;
  /// Signed relative error in percent: 100 (predicted / measured - 1).
  double error_pct() const;
};

/// One table row: its values, and for verdict tables whether it was right.
struct validation_row {
  std::string label;          ///< "175B tp 8 pp 16", "3.6B tp 1 dp 64 pp 1 mbs 8"
  std::vector<compared_value> values;
  std::string note;           ///< e.g. "ran, predicted fits"; "limiting bubble"
  bool right = true;          ///< false for a wrong fit verdict
};

/// A statistic over a table; gated ones decide whether the table passes.
struct validation_stat {
  std::string name;           ///< "MAPE", "Spearman 175B", "verdicts right"
  double value = 0;
  std::string unit;           ///< "%", "" or "/16"
  bool gated = false;
  bool at_most = true;        ///< gate: value <= limit (else value >= limit)
  double limit = 0;
  bool pass() const { return !gated || (at_most ? value <= limit : value >= limit); }
};

/// One table's comparison.
struct table_validation {
  std::string id;             ///< stable: "sc21", "korthikanti_t5", ...
  std::string title;          ///< "SC21 Table 1 TFLOP/s (A100)"
  std::vector<validation_row> rows;
  std::vector<validation_stat> stats;
  bool pass() const;
};

/// Mean absolute percentage error of the values, in percent (0 when empty).
double mape(const std::vector<compared_value>& values);

/// Spearman rank correlation (ties share the mean rank).
double spearman(const std::vector<double>& a, const std::vector<double>& b);

/// vTrain's cluster: a DGX A100 with 800 Gbit/s of IB per node. The other
/// tables ran on core/reference_specs.hpp's DGX A100 and DGX H100.
cluster_spec validation_vtrain_cluster();

table_validation validate_sc21(const std::vector<sc21_row>& rows);
table_validation validate_korthikanti_times(const std::vector<korthikanti_row>& rows);
table_validation validate_korthikanti_memory(const std::vector<korthikanti_row>& rows);
table_validation validate_megatron_core(const std::vector<megatron_core_row>& rows);
table_validation validate_optico(const std::vector<optico_row>& rows);
table_validation validate_vtrain(const std::vector<vtrain_row>& rows);

/// Every table above, in that order.
std::vector<table_validation> validate_all(const published_tables& tables);

} // namespace paratune
