#pragma once

#include <string>

namespace paratune::topics {

// The diagnosis pipeline's topics (ASAP's Coordinator -> Analyzer ->
// Proposal): a diagnose_request on "diagnose.<sid>", the Analyzer's
// diagnosis on "diagnosis.<sid>", the Proposal agent's proposal_set on
// "proposals.<sid>". The prefixes differ in their first bytes so that
// ZeroMQ's prefix filter never mixes them with "proposal." (trials).

inline std::string diagnose(const std::string& sid) { return "diagnose." + sid; }
inline std::string diagnosis(const std::string& sid) { return "diagnosis." + sid; }
inline std::string proposals(const std::string& sid) { return "proposals." + sid; }

inline constexpr const char* diagnose_prefix = "diagnose.";
inline constexpr const char* diagnosis_prefix = "diagnosis.";
inline constexpr const char* proposals_prefix = "proposals.";

} // namespace paratune::topics
