#pragma once

#include <string>
#include <string_view>

#include "core/text.hpp"

namespace paratune::topics {

// Hierarchical topics so that ZeroMQ's byte-prefix filter selects them:
// subscribing to "trial.<sid>." receives every trial of one session.

inline std::string session_status(const std::string& sid) { return "session." + sid + ".status"; }
inline std::string analysis(const std::string& sid) { return "analysis." + sid; }
inline std::string report(const std::string& sid) { return "report." + sid; }
inline std::string proposal(const std::string& sid) { return "proposal." + sid; }
inline std::string trial_state(const std::string& sid, int trial) {
  return "trial." + sid + "." + std::to_string(trial) + ".state";
}
inline std::string trial_prefix(const std::string& sid) { return "trial." + sid + "."; }
inline std::string telemetry(const std::string& sid, int trial) {
  return "telemetry." + sid + "." + std::to_string(trial);
}
inline std::string output(const std::string& sid, int trial) {
  return "output." + sid + "." + std::to_string(trial);
}
inline std::string metrics(const std::string& sid, int trial) {
  return "metrics." + sid + "." + std::to_string(trial);
}
inline std::string failure(const std::string& sid, int trial) {
  return "failure." + sid + "." + std::to_string(trial);
}
inline std::string failure_prefix(const std::string& sid) { return "failure." + sid + "."; }
/// What a trial's paratune-relay publishes its lines on (adapters/relay's
/// relay_topic, which the relay program uses, is the same text).
inline std::string relay(const std::string& sid, int trial) {
  return "relay." + sid + "." + std::to_string(trial);
}
/// Every record the pool stores, as stored (seq and prev_seq set), published
/// by the pool actor before it answers the writer: the feed that keeps the
/// agents' ledgers current without reading the pool (ledger's follow()).
inline std::string record(const std::string& sid) { return "record." + sid; }
inline constexpr std::string_view record_prefix = "record.";
} // namespace paratune::topics
