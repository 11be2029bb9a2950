#pragma once

#include <string>

#include "adapters/megatron/megatron_log.hpp"
#include "adapters/profile/kineto_trace.hpp"
#include "adapters/profile/xprof_profile.hpp"
#include "core/diagnosis/diagnosis_evidence.hpp"
#include "core/diagnosis/experiment_spec.hpp"

namespace paratune {

/// What the Analyzer reads from each kind of profile. `source` names it.
diagnosis_evidence evidence_from_xprof(const xprof_profile& p, const std::string& source);
diagnosis_evidence evidence_from_kineto(const kineto_trace& t, const std::string& source);
diagnosis_evidence evidence_from_megatron(const megatron_log& log, const std::string& source);

/// Adds `from` to `into`: KPIs fill only what `into` lacks, operations are
/// taken when `into` has none, timers, sources and warnings are appended,
/// partial is or-ed.
void merge_evidence(diagnosis_evidence& into, const diagnosis_evidence& from);

/// Fills what the experiment knows and the profile did not say: the device
/// memory limit, FLOP utilisation from TFLOP/s per device and the peak.
void enrich_evidence(diagnosis_evidence& e, const experiment_spec& exp);

} // namespace paratune
