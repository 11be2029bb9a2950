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
/// Whether `topic` is a relay's: relay.SID.TRIAL with SID a plain name and
/// TRIAL a number. The only topic the bus takes from cluster nodes.
inline bool is_relay(std::string_view topic) {
  constexpr std::string_view prefix = "relay.";
  if (topic.substr(0, prefix.size()) != prefix)
    return false;
  topic.remove_prefix(prefix.size());
  const auto dot = topic.rfind('.');
  if (dot == std::string_view::npos)
    return false;
  const auto trial = topic.substr(dot + 1);
  return is_plain_name(topic.substr(0, dot), 128) && !trial.empty() && trial.size() <= 9
         && trial.find_first_not_of("0123456789") == std::string_view::npos;
}

} // namespace paratune::topics
