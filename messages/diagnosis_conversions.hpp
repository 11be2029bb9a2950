#pragma once

#include "core/diagnosis/diagnosis_report.hpp"
#include "core/diagnosis/past_optimization.hpp"
#include "core/diagnosis/proposal.hpp"
#include "messages/wire_types.hpp"

namespace paratune::wire {

// Between the diagnosis types of core/diagnosis and their wire bodies.

optimization_record to_wire(const past_optimization& r);
past_optimization from_wire(const optimization_record& w);

diagnosis to_wire(const diagnosis_report& r, double measured_step_ms);
/// Throws input_error when the stored class names are unknown.
diagnosis_report from_wire(const diagnosis& w);

proposal_set to_wire(const paratune::proposal_set& s);

/// Every optimization_record in a history, decoded (bad records skipped).
std::vector<past_optimization> optimizations_of(const std::vector<envelope>& history);

/// The ledger session the pool keeps past optimizations under.
inline constexpr const char* optimization_ledger = "optimizations";

} // namespace paratune::wire
