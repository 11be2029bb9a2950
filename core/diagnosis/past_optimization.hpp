#pragma once

#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_report.hpp"
#include "core/diagnosis/experiment_spec.hpp"

namespace paratune {

/// A past optimization as the pool keeps it: what was changed on which job,
/// what limited it, and what the change did (ASAP's historical database).
struct past_optimization {
  std::string id;
  std::string title;
  std::string platform;       ///< "tpu" or "gpu"
  std::string model;          ///< model name
  double params_billion = 0;
  std::string hardware;       ///< cluster name, "tpu-v5p"
  int devices = 0;
  std::string bottleneck;     ///< bottleneck_class name
  std::string before;         ///< mesh ("model=8,data=8,seq=8") or Megatron keys ("tp=8,pp=1")
  std::string after;
  double speedup = 1;         ///< throughput after / before
  std::string impact;         ///< in words: "-28% TPU compute time"
  std::string source;         ///< where it is documented
};

/// A configuration value as a number, so that changes have a direction:
/// numbers as themselves, false/true 0/1, recompute none/selective/full 0/1/2;
/// -1 for anything else.
double ordinal_value(const std::string& value);

/// How alike a record's job is to `exp` (0-1): platform, hardware family,
/// model size, device count and bottleneck each contribute.
double job_similarity(const past_optimization& r, const experiment_spec& exp,
                      bottleneck_class b);

/// +1 when the record grew every key of `grown` and shrank every key of
/// `shrunk` (axis or configuration key names, as a proposal's change does),
/// -1 when it moved any of them the other way, 0 otherwise.
int change_agreement(const past_optimization& r, const std::vector<std::string>& grown,
                     const std::vector<std::string>& shrunk);

/// Records worth citing for a proposal, most similar first.
struct history_match {
  const past_optimization* record = nullptr;
  double similarity = 0;
  int agreement = 0;
};
std::vector<history_match> match_history(const std::vector<past_optimization>& records,
                                         const experiment_spec& exp, bottleneck_class b,
                                         const std::vector<std::string>& grown,
                                         const std::vector<std::string>& shrunk);

} // namespace paratune
